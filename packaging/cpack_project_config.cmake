# SPDX-License-Identifier: GPL-3.0-or-later
# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE). shardscope-cli looks for its catalogs in
# ${CMAKE_INSTALL_PREFIX}/share/shardscope/catalog, compiled in at build time, and the .deb installs to /usr:
# a .deb from a build with another prefix would install catalogs the program never finds.
if(CPACK_GENERATOR STREQUAL "DEB" AND NOT CPACK_SHARDSCOPE_INSTALL_PREFIX STREQUAL "/usr")
  message(FATAL_ERROR "shardscope: the .deb needs a build configured with -DCMAKE_INSTALL_PREFIX=/usr "
    "(this one has ${CPACK_SHARDSCOPE_INSTALL_PREFIX}); ./dev.sh package does that")
endif()
