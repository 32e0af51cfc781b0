#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Hostile scenario files against `shardscope-cli evaluate` (issue 6, "Hostile input"). The files are generated here,
# at test time. Every one must end in exit code 2 with a message naming the field (or the file), or in a valid
# result with exit 0; never a crash (signal), never exit 1 (internal error), never a hang.
#
#   usage: hostile_cli.sh CLI WORKDIR [sanitized]     (ctest passes the built CLI and a scratch directory)
#
# Outcomes a case can expect:
#   invalid FIELD   exit 2, and standard error has "error: FIELD:" (FIELD "(file)" for unreadable/malformed files)
#   valid           exit 0, "valid": true, no null (NaN/inf), no negative count or min_gpus in the result JSON
#   warn FIELD      as valid, and standard error has "warning: FIELD:" (unknown fields are warnings, not errors)
#   rejected TEXT   exit 2, and standard error contains TEXT (e.g. the path of a file that cannot be opened)
#   flagged FIELD   exit 0 or 2, and standard error names FIELD (as a warning or an error)
# A case run with KNOWN="why" is a known defect reported to the core (xfail): its failure is printed but does
# not fail the test; if it starts passing the test fails (XPASS) so that KNOWN is removed with the fix.
set -u
CLI=${1:?usage: hostile_cli.sh CLI WORKDIR [sanitized]}
W=${2:?usage: hostile_cli.sh CLI WORKDIR [sanitized]}
SANITIZED=${3:-0}
[ -x "$CLI" ] || { echo "hostile_cli: $CLI is not an executable" >&2; exit 1; }
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
case "$SANITIZED" in ON | on | 1 | TRUE | true | YES | yes) SANITIZED=1 ;; *) SANITIZED=0 ;; esac
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
export LC_ALL=C

S='"schema": "shardscope.scenario/1"'
npass=0 nfail=0 nxfail=0 nxpass=0
KNOWN=""
failures=()

# check NAME OUTCOME [FIELD] [input-file]: runs the CLI on $W/NAME.json (or the given path, "-" = NAME.json on stdin)
check() {
  local name=$1 outcome=$2 field=${3:-} input=${4:-$W/$1.json}
  local out="$W/$name.out" err="$W/$name.err" rc why=""
  if [ "$input" = "-" ]; then
    timeout 120 "$CLI" evaluate - <"$W/$name.json" >"$out" 2>"$err"
  else
    timeout 120 "$CLI" evaluate "$input" >"$out" 2>"$err"
  fi
  rc=$?
  if [ $rc -eq 124 ]; then
    why="hung (killed after 120 s)"
  elif [ $rc -gt 128 ]; then
    why="crashed with signal $((rc - 128))"
  elif [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
    why="exit code $rc (expected 0 or 2)"
  elif grep -q "runtime error:\|AddressSanitizer\|LeakSanitizer" "$err"; then
    why="sanitizer report"
  else
    case "$outcome" in
      invalid)
        if [ $rc -ne 2 ]; then why="exit code $rc, expected 2 naming $field"
        elif ! grep -qF -- "error: $field:" "$err"; then why="exit code 2 but no 'error: $field:' on standard error"
        fi ;;
      valid | warn)
        if [ $rc -ne 0 ]; then why="exit code $rc, expected a valid result"
        elif ! grep -q '"valid": true' "$out"; then why="exit code 0 but no '\"valid\": true' in the result"
        elif grep -q 'null' "$out"; then why="the result has null figures (NaN or infinity): $(grep -m3 -B1 null "$out" | tr -s ' \n' ' ')"
        elif grep -qE '"(count|min_gpus|micro_batches|gpus)": -' "$out"; then why="the result has a negative count (integer overflow): $(grep -m3 -E '"(count|min_gpus|micro_batches|gpus)": -' "$out" | tr -s ' \n' ' ')"
        elif [ "$outcome" = warn ] && ! grep -qF -- "warning: $field:" "$err"; then why="no 'warning: $field:' on standard error"
        fi ;;
      rejected)
        if [ $rc -ne 2 ]; then why="exit code $rc, expected 2 naming $field"
        elif ! grep -qF -- "$field" "$err"; then why="exit code 2 but standard error does not name $field"
        fi ;;
      flagged)
        if ! grep -qF -- "$field" "$err"; then why="exit code $rc and nothing on standard error names $field"; fi ;;
      *) why="bad outcome '$outcome' in the test" ;;
    esac
  fi
  if [ -z "$why" ]; then
    if [ -n "$KNOWN" ]; then
      nxpass=$((nxpass + 1)); failures+=("$name")
      echo "XPASS $name: now behaves ($outcome $field); remove KNOWN (\"$KNOWN\") from the test"
    else
      npass=$((npass + 1)); echo "ok    $name (exit $rc)"
    fi
  else
    if [ -n "$KNOWN" ]; then
      nxfail=$((nxfail + 1)); echo "XFAIL $name: $why   [known: $KNOWN]"
    else
      nfail=$((nfail + 1)); failures+=("$name"); echo "FAIL  $name: $why"
    fi
    echo "      stderr: $(head -c 600 "$err" | cat -v | head -n 5 | tr '\n' '|')"
  fi
  KNOWN=""
}

# put NAME TEXT: writes a scenario file (printf %s: no escapes interpreted)
put() { printf '%s' "$2" >"$W/$1.json"; }
# nest N OPEN CLOSE INNER: N levels of OPEN ... CLOSE around INNER
nest() { local i o="" c=""; for ((i = 0; i < $1; i++)); do o+=$2; c+=$3; done; printf '%s%s%s' "$o" "$4" "$c"; }

echo "== the sane baseline"
put baseline "{$S}"
check baseline valid

echo "== empty, blank and non-object files"
: >"$W/empty.json"; check empty invalid "(file)"
put blank $'  \n\t \r\n'; check blank invalid "(file)"
put root_array '[{"schema": "shardscope.scenario/1"}]'; check root_array invalid "(file)"
put root_number '42'; check root_number invalid "(file)"
put root_string '"shardscope.scenario/1"'; check root_string invalid "(file)"
put root_null 'null'; check root_null invalid "(file)"
put root_true 'true'; check root_true invalid "(file)"
put truncated "{$S, \"cluster\": {\"nodes\": 4"; check truncated invalid "(file)"
put trailing_garbage "{$S} {}"; check trailing_garbage invalid "(file)"
put comment "{$S /* a comment */}"; check comment invalid "(file)"
put no_schema '{"cluster": {"nodes": 4}}'; check no_schema invalid schema
put other_schema '{"schema": "shardscope.scenario/2"}'; check other_schema invalid schema
check nonexistent_file rejected "$W/does-not-exist.json" "$W/does-not-exist.json"
check directory invalid "(file)" "$W"
cp "$W/baseline.json" "$W/stdin.json"; check stdin valid "" -

echo "== wrong types"
put type_nodes_string "{$S, \"cluster\": {\"nodes\": \"4\"}}"; check type_nodes_string invalid cluster.nodes
put type_tp_bool "{$S, \"parallelism\": {\"tp\": true}}"; check type_tp_bool invalid parallelism.tp
put type_model_array "{$S, \"model\": [\"llama3-70b\"]}"; check type_model_array invalid model
put type_cluster_null "{$S, \"cluster\": null}"; check type_cluster_null invalid cluster
put type_gpu_number "{$S, \"cluster\": {\"gpu\": 42}}"; check type_gpu_number invalid cluster.gpu
put type_precision_number "{$S, \"training\": {\"precision\": 16}}"; check type_precision_number invalid training.precision
put type_name_object "{$S, \"name\": {\"en\": \"x\"}}"; check type_name_object invalid name
put type_gdr_string "{$S, \"nccl\": {\"gdr\": \"yes\"}}"; check type_gdr_string invalid nccl.gdr
put type_schema_number '{"schema": 1}'; check type_schema_number invalid schema
put type_moe_string "{$S, \"model\": {\"preset\": \"mixtral-8x7b\", \"moe\": \"many\"}}"; check type_moe_string invalid model.moe
put type_memory_string "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bytes\": \"80GB\"}}}"
check type_memory_string invalid cluster.gpu.memory_bytes
put type_offload_null "{$S, \"offload\": {\"optimizer\": null}}"; check type_offload_null invalid offload.optimizer
put type_seq_fraction "{$S, \"training\": {\"seq_len\": 8192.5}}"; check type_seq_fraction invalid training.seq_len
put type_sharding_unknown "{$S, \"parallelism\": {\"sharding\": \"zero4\"}}"; check type_sharding_unknown invalid parallelism.sharding
put type_gpu_unknown_id "{$S, \"cluster\": {\"gpu\": \"h100-typo\"}}"; check type_gpu_unknown_id invalid cluster.gpu
put type_preset_unknown "{$S, \"model\": {\"preset\": \"gpt-5\"}}"; check type_preset_unknown invalid model.preset
put type_custom_gpu_partial "{$S, \"cluster\": {\"gpu\": {\"name\": \"mine\", \"memory_bytes\": 1e10}}}"
check type_custom_gpu_partial invalid cluster.gpu.bf16_dense_flops

echo "== NaN and infinities (not JSON)"
put nan_literal "{$S, \"cluster\": {\"nodes\": NaN}}"; check nan_literal invalid "(file)"
put nan_lower "{$S, \"cluster\": {\"nodes\": nan}}"; check nan_lower invalid "(file)"
put infinity "{$S, \"cluster\": {\"nodes\": Infinity}}"; check infinity invalid "(file)"
put minus_infinity "{$S, \"model\": {\"preset\": \"llama3-8b\", \"params\": -Infinity}}"; check minus_infinity invalid "(file)"
put nan_string "{$S, \"cluster\": {\"nodes\": \"NaN\"}}"; check nan_string invalid cluster.nodes
put overflow_1e400 "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bytes\": 1e400}}}"
check overflow_1e400 invalid "(file)"
put overflow_minus_1e400 "{$S, \"cluster\": {\"misc_bytes\": -1e400}}"; check overflow_minus_1e400 invalid "(file)"

echo "== negative numbers"
put neg_nodes "{$S, \"cluster\": {\"nodes\": -4}}"; check neg_nodes invalid cluster.nodes
put neg_zero_nodes "{$S, \"cluster\": {\"nodes\": -0}}"; check neg_zero_nodes invalid cluster.nodes
put neg_tp "{$S, \"parallelism\": {\"tp\": -2}}"; check neg_tp invalid parallelism.tp
put neg_seq "{$S, \"training\": {\"seq_len\": -1}}"; check neg_seq invalid training.seq_len
put neg_params "{$S, \"model\": {\"preset\": \"llama3-8b\", \"params\": -5}}"; check neg_params invalid model.params
put neg_memory "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bytes\": -1}}}"
check neg_memory invalid cluster.gpu.memory_bytes
put neg_misc "{$S, \"cluster\": {\"misc_bytes\": -1}}"; check neg_misc invalid cluster.misc_bytes
put neg_latency "{$S, \"cluster\": {\"inter_node\": {\"id\": \"ib-ndr400\", \"latency\": -1e-6}}}"
check neg_latency invalid cluster.inter_node.latency
put neg_price "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"hourly_price_usd\": -3}}}"
check neg_price invalid cluster.gpu.hourly_price_usd
put neg_channels "{$S, \"nccl\": {\"min_channels\": -1}}"; check neg_channels invalid nccl.min_channels
put neg_experts "{$S, \"model\": {\"preset\": \"mixtral-8x7b\", \"moe\": {\"experts\": -8}}}"; check neg_experts invalid model.moe.experts

echo "== enormous numbers"
put huge_nodes_1e300 "{$S, \"cluster\": {\"nodes\": 1e300}}"; check huge_nodes_1e300 invalid cluster.nodes
put huge_gpus_per_node "{$S, \"cluster\": {\"gpus_per_node\": 1e300}}"; check huge_gpus_per_node invalid cluster.gpus_per_node
put huge_nodes_literal "{$S, \"cluster\": {\"nodes\": 1$(printf '0%.0s' {1..300})}}"; check huge_nodes_literal invalid cluster.nodes
put huge_gpu_product "{$S, \"cluster\": {\"nodes\": 10000000, \"gpus_per_node\": 1024}}"; check huge_gpu_product invalid cluster.nodes
put huge_int_nodes "{$S, \"cluster\": {\"nodes\": 2147483648}}"; check huge_int_nodes invalid cluster.nodes
put huge_u64 "{$S, \"training\": {\"global_batch\": 18446744073709551615}}"; check huge_u64 invalid training.global_batch
put huge_2p53 "{$S, \"training\": {\"global_batch\": 9007199254740993}}"; check huge_2p53 invalid training.global_batch
put huge_tp "{$S, \"parallelism\": {\"tp\": 2147483647}}"; check huge_tp invalid parallelism.tp
put huge_seq "{$S, \"training\": {\"seq_len\": 1e300}}"; check huge_seq invalid training.seq_len
put huge_layers "{$S, \"model\": {\"preset\": \"llama3-8b\", \"layers\": 2147483648}}"; check huge_layers invalid model.layers
put huge_hidden "{$S, \"model\": {\"preset\": \"llama3-8b\", \"hidden\": 1e300}}"; check huge_hidden invalid model.hidden
put huge_memory "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bytes\": 1e300}}}"
check huge_memory invalid cluster.gpu.memory_bytes
put huge_flops "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"bf16_dense_flops\": 1.7e308}}}"
check huge_flops invalid cluster.gpu.bf16_dense_flops
put params_1e15 "{$S, \"model\": {\"preset\": \"llama3-70b\", \"params\": 1e15}}"; check params_1e15 valid
grep -q '"parameters": 1e+15' "$W/params_1e15.out" || { nfail=$((nfail + 1)); failures+=(params_1e15_value); echo "FAIL  params_1e15: parameters is not 1e+15 in the result"; }
put params_1e16 "{$S, \"model\": {\"preset\": \"llama3-70b\", \"params\": 1e16}}"; check params_1e16 invalid model.params
put params_1e300 "{$S, \"model\": {\"preset\": \"llama3-70b\", \"params\": 1e300}}"; check params_1e300 invalid model.params
put tiny_misc "{$S, \"cluster\": {\"misc_bytes\": 1e-300}}"; check tiny_misc valid
# The largest layout validation accepts: 10^7 GPUs.
put max_gpus "{$S, \"cluster\": {\"nodes\": 1250000, \"gpus_per_node\": 8}, \"training\": {\"global_batch\": 10000000}}"
check max_gpus valid
# The largest derived model: 10,000 layers of hidden 2^20 (no params override) has ~5.7e17 parameters, beyond the
# 10^15 of README "Limits".
put max_model "{$S, \"model\": {\"layers\": 10000, \"hidden\": 1048576, \"heads\": 65536, \"kv_heads\": 65536, \"ffn_hidden\": 16777216, \"vocab\": 100000000, \"mlp\": \"swiglu\", \"norm\": \"rmsnorm\", \"position_embedding\": \"rope\"}}"
check max_model invalid model
# Tiny rates would make every time infinite (S / 1e-300 overflows): validation has lower limits.
put tiny_bandwidth "{$S, \"cluster\": {\"inter_node\": {\"id\": \"ib-ndr400\", \"bandwidth\": 1e-300}}}"
check tiny_bandwidth invalid cluster.inter_node.bandwidth
put tiny_hbm "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bandwidth\": 1e-300}}}"
check tiny_hbm invalid cluster.gpu.memory_bandwidth
put tiny_flops "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"bf16_dense_flops\": 1e-300}}}"
check tiny_flops invalid cluster.gpu.bf16_dense_flops
put tiny_scale_up "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"scale_up_bandwidth\": 1e-300}}}"
check tiny_scale_up invalid cluster.gpu.scale_up_bandwidth
# Multi-head latent attention sizes (DeepSeek-V3): a negative size gives a negative parameter count.
put mla_negative "{$S, \"model\": {\"preset\": \"deepseek-v3\", \"mla\": {\"v_head_dim\": -630758656}}, \"cluster\": {\"nodes\": 1, \"gpus_per_node\": 1}, \"training\": {\"global_batch\": 1}}"
check mla_negative invalid model.mla.v_head_dim
put mla_negative_small "{$S, \"model\": {\"preset\": \"deepseek-v3\", \"mla\": {\"v_head_dim\": -238}}}"
check mla_negative_small invalid model.mla.v_head_dim
# Collective call counts are int64: 10^9 micro-batches x 10^4 layers x 3 (cp - 1) calls of a 2^19-way CP ring
# (3.1e19) do not fit; the count saturates instead of wrapping negative.
put overflow_cp_count "{$S, \"model\": {\"layers\": 10000, \"hidden\": 64, \"heads\": 1, \"kv_heads\": 1, \"ffn_hidden\": 256, \"vocab\": 1000, \"mlp\": \"gelu\", \"norm\": \"layernorm\", \"position_embedding\": \"rope\"}, \"cluster\": {\"nodes\": 65536, \"gpus_per_node\": 8}, \"training\": {\"seq_len\": 1048576, \"global_batch\": 1000000000, \"micro_batch\": 1}, \"parallelism\": {\"sharding\": \"zero3\", \"cp\": 524288}}"
check overflow_cp_count valid
# min_gpus = dp x tp x pp x cp would be 4096 x 2^19 = 2^31 here, beyond int and the 10^7-GPU limit: not negative.
put overflow_min_gpus "{$S, \"model\": {\"layers\": 8, \"hidden\": 64, \"heads\": 1, \"kv_heads\": 1, \"ffn_hidden\": 256, \"vocab\": 1000, \"mlp\": \"gelu\", \"norm\": \"layernorm\", \"position_embedding\": \"rope\", \"params\": 1e15}, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"memory_bytes\": 2936949600}, \"nodes\": 65536, \"gpus_per_node\": 8}, \"training\": {\"seq_len\": 1048576, \"global_batch\": 1048576, \"micro_batch\": 1}, \"parallelism\": {\"sharding\": \"zero3\", \"cp\": 524288}}"
check overflow_min_gpus valid

echo "== deep nesting"
put nest_64_ok "{$S, \"x\": $(nest 63 '[' ']' 1)}"; check nest_64_ok warn x
put nest_65 "{$S, \"x\": $(nest 64 '[' ']' 1)}"; check nest_65 invalid "(file)"
put nest_objects "$(nest 1000 '{"a":' '}' "{$S}")"; check nest_objects invalid "(file)"
put nest_100k "$(nest 100000 '[' ']' '')"; check nest_100k invalid "(file)"
put nest_unclosed "{$S, \"x\": $(nest 100000 '[' '' '')"; check nest_unclosed invalid "(file)"
put brackets_in_string "{$S, \"name\": \"$(nest 200 '[' '' '')\"}"; check brackets_in_string valid

echo "== duplicate keys"
put dup_nodes "{$S, \"cluster\": {\"nodes\": 4, \"nodes\": 2}}"
check dup_nodes invalid cluster.nodes
put dup_schema "{$S, \"schema\": \"shardscope.scenario/1\"}"
check dup_schema invalid schema

echo "== invalid UTF-8 and odd encodings"
printf '{%s, "name": "\xff\xfe bad"}' "$S" >"$W/utf8_invalid.json"; check utf8_invalid invalid "(file)"
printf '{%s, "name": "\xc0\xaf overlong"}' "$S" >"$W/utf8_overlong.json"; check utf8_overlong invalid "(file)"
printf '{%s, "name": "\xed\xa0\x80 surrogate"}' "$S" >"$W/utf8_surrogate.json"; check utf8_surrogate invalid "(file)"
printf '{%s, "name": "truncated \xe2\x82"}' "$S" >"$W/utf8_truncated.json"; check utf8_truncated invalid "(file)"
printf '{%s, "\xff": 1}' "$S" >"$W/utf8_key.json"; check utf8_key invalid "(file)"
put lone_surrogate_escape "{$S, \"name\": \"\\ud800\"}"; check lone_surrogate_escape invalid "(file)"
printf '{%s, "name": "a\0b"}' "$S" >"$W/nul_in_string.json"; check nul_in_string invalid "(file)"
# nlohmann's lexer ends the document at a NUL byte; whatever follows must not be silently ignored.
printf '{%s}\0 {"cluster": 1}' "$S" >"$W/nul_after.json"; check nul_after invalid "(file)"
printf '\xef\xbb\xbf{%s}' "$S" >"$W/utf8_bom.json"; check utf8_bom valid
printf '\xff\xfe{\0"\0' >"$W/utf16.json"; check utf16 invalid "(file)"
put unicode_name "{$S, \"name\": \"Llama 3 — 70 B, ÄÖÜ ß € 中文 🚀 \\u00e9\"}"; check unicode_name valid

echo "== large files"
{ printf '{%s, "name": "' "$S"; head -c 52428800 /dev/zero | tr '\0' a; printf '"}'; } >"$W/size_50mb.json"
check size_50mb invalid "(file)"
{ printf '{%s, "name": "' "$S"; head -c 15000000 /dev/zero | tr '\0' a; printf '"}'; } >"$W/size_15mb.json"
check size_15mb valid
{ printf '{%s' "$S"; for i in $(seq 1 20000); do printf ', "k%d": %d' "$i" "$i"; done; printf '}'; } >"$W/many_unknown_keys.json"
check many_unknown_keys warn "(file)" # 20 of them named, then "… and 19,980 more" (issue 23: lists are capped)
if ! grep -qF "warning: (file): … and 19,980 more" "$W/many_unknown_keys.err" || [ "$(wc -l <"$W/many_unknown_keys.err")" -gt 21 ]; then
  nfail=$((nfail + 1)); failures+=(many_unknown_keys_capped); echo "FAIL  many_unknown_keys_capped: not 20 warnings and '… and 19,980 more'"
fi
rm -f "$W/size_50mb.json" "$W/size_15mb.json"
if [ "$SANITIZED" -eq 0 ]; then
  # An endless input (a FIFO, /dev/zero, a multi-GB file) must stop at the 16 MiB limit, not be read whole:
  # 1 GB on standard input with 600 MB of address space.
  ( ulimit -v 600000
    head -c 1000000000 /dev/zero | timeout 120 "$CLI" evaluate - >"$W/endless_stdin.out" 2>"$W/endless_stdin.err"
    echo $? >"$W/endless_stdin.rc" )
  rc=$(cat "$W/endless_stdin.rc")
  if [ "$rc" = 2 ] && grep -qF "error: (file):" "$W/endless_stdin.err"; then
    npass=$((npass + 1)); echo "ok    endless_stdin (exit 2)"
  else
    nfail=$((nfail + 1)); failures+=(endless_stdin)
    echo "FAIL  endless_stdin: exit $rc, expected 2 naming (file): $(head -c 200 "$W/endless_stdin.err" | tr '\n' '|')"
  fi
else
  echo "skip  endless_stdin (an address-space limit does not work under AddressSanitizer)"
fi

echo "== unknown fields (warnings, not errors)"
put unknown_root "{$S, \"bogus\": 1}"; check unknown_root warn bogus
put unknown_cluster "{$S, \"cluster\": {\"nodes\": 4, \"colour\": \"red\"}}"; check unknown_cluster warn cluster.colour
put unknown_typo "{$S, \"parallelism\": {\"dp\": 4}}"; check unknown_typo warn parallelism.dp
put unknown_model "{$S, \"model\": {\"preset\": \"llama3-8b\", \"experts\": 8}}"; check unknown_model warn model.experts
put unknown_gpu "{$S, \"cluster\": {\"gpu\": {\"id\": \"h100-sxm5-80gb\", \"colour\": \"green\"}}}"; check unknown_gpu warn cluster.gpu.colour
put unknown_nested "{$S, \"nccl\": {\"env\": {\"NCCL_DEBUG\": \"INFO\", \"deep\": [1, [2, [3]]]}}}"; check unknown_nested warn nccl.env

# run_case NAME RC TEXT ARGS...: `CLI ARGS...` must exit RC with TEXT on standard error; never crash, hang or report
# a sanitizer error.
run_case() {
  local name=$1 want=$2 text=$3 rc why=""
  shift 3
  timeout 120 "$CLI" "$@" >"$W/$name.out" 2>"$W/$name.err"
  rc=$?
  if [ $rc -eq 124 ]; then why="hung (killed after 120 s)"
  elif [ $rc -gt 128 ]; then why="crashed with signal $((rc - 128))"
  elif grep -q "runtime error:\|AddressSanitizer\|LeakSanitizer" "$W/$name.err"; then why="sanitizer report"
  elif [ $rc -ne "$want" ]; then why="exit code $rc, expected $want"
  elif ! grep -qF -- "$text" "$W/$name.err"; then why="no '$text' on standard error"
  fi
  if [ -z "$why" ]; then
    npass=$((npass + 1)); echo "ok    $name (exit $rc)"
  else
    nfail=$((nfail + 1)); failures+=("$name")
    echo "FAIL  $name: $why: $(head -c 300 "$W/$name.err" | tr '\n' '|')"
  fi
}
# unchanged NAME FILE COPY: FILE still holds COPY's bytes (a refused --out wrote nothing).
unchanged() {
  if cmp -s "$2" "$3"; then npass=$((npass + 1)); echo "ok    $1"
  else nfail=$((nfail + 1)); failures+=("$1"); echo "FAIL  $1: $2 was changed"; fi
}

echo "== importers (issue 23): crashes, wrapped numbers, capped lists, scripts as bash reads them"
printf '[parallelism]\ndata_parallel_replicate_degree = 4294967296\ntensor_parallel_degree = 65536\npipeline_parallel_degree = 65536\n' >"$W/product.toml"
run_case tt_degree_product_wraps 2 "error: parallelism.tensor_parallel_degree:" import "$W/product.toml" --from torchtitan
printf -- '--num-layers 2 --hidden-size 16 --num-attention-heads 2 --swiglu --num-experts 4 --moe-shared-expert-intermediate-size 64\n' >"$W/expert0.sh"
run_case mg_default_expert_size_zero 2 "error: --ffn-hidden-size:" import "$W/expert0.sh" --from megatron-args
{ printf 'a = '; nest 10000 '{ b = ' '}' 1; printf '\n'; } >"$W/deep.toml"
run_case tt_inline_tables_10000_deep 2 "nest deeper than 16 levels" import "$W/deep.toml" --from torchtitan
printf '{"model_type": "llama", "num_hidden_layers": 4294967328}' >"$W/layers.json"
run_case hf_layers_2_32_plus_32 2 "error: num_hidden_layers:" import "$W/layers.json" --from hf-config
printf '{"train_batch_size": 8, "sequence_parallel_size": 4294967298}' >"$W/sp.json"
run_case ds_sp_2_32_plus_2 2 "error: sequence_parallel_size:" import "$W/sp.json" --from deepspeed
printf '{"train_batch_size": 8, "sequence_parallel_size": 1000000000000}' >"$W/sp12.json"
run_case ds_sp_10_12 2 "error: sequence_parallel_size: must be a whole number from 1 to 1000000000" import "$W/sp12.json" --from deepspeed
printf -- '--num-layers 2 --hidden-size 64 --num-attention-heads 4 --hidden-dropout nan\n' >"$W/nan.sh"
run_case mg_dropout_nan 2 "error: --hidden-dropout:" import "$W/nan.sh" --from megatron-args
printf 'cat <<EOF\n--tensor-model-parallel-size 3\nEOF\n--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100\n' >"$W/heredoc.sh"
run_case mg_heredoc_body_skipped 0 "from megatron-args:" import "$W/heredoc.sh" --from megatron-args
printf '\xef\xbb\xbf[parallelism]\r\ntensor_parallel_degree = 2\r\n' >"$W/bom.toml"
run_case tt_bom_crlf 0 "from torchtitan:" import "$W/bom.toml" --from torchtitan
{ printf '{"model_type": "llama"'; for ((i = 0; i < 200000; i++)); do printf ',"u%d":0' $i; done; printf '}'; } >"$W/unknown.json"
run_case hf_200000_unknown_keys_capped 0 ", … and 199,980 more" import "$W/unknown.json" --from hf-config
if [ "$(wc -c <"$W/hf_200000_unknown_keys_capped.err")" -gt 20000 ]; then
  nfail=$((nfail + 1)); failures+=(hf_unknown_keys_size); echo "FAIL  hf_unknown_keys_size: an uncapped warning"
fi

echo "== --out onto the command's own input (issue 23): refused, through links too; --force writes"
printf '{%s}' "$S" >"$W/c.json"; cp "$W/c.json" "$W/c.copy"
ln -sf "$W/c.json" "$W/c-link.json"; ln -f "$W/c.json" "$W/c-hard.json"
run_case out_is_input 2 "error: --out:" import "$W/c.json" --from scenario --out "$W/c.json"
run_case out_is_symlink_to_input 2 "error: --out:" import "$W/c.json" --from scenario --out "$W/c-link.json"
run_case out_is_hard_link_to_input 2 "error: --out:" import "$W/c.json" --from scenario --out "$W/c-hard.json"
run_case out_is_base 2 "error: --out:" import "$W/layers.json" --from hf-config --base "$W/c.json" --out "$W/c.json"
unchanged out_refused_left_input "$W/c.json" "$W/c.copy"
run_case out_is_input_forced 0 "from scenario:" import "$W/c.json" --from scenario --out "$W/c.json" --force
printf '{"schema": "shardscope.runs/1", "runs": []}' >"$W/runs.json"; cp "$W/runs.json" "$W/runs.copy"
ln -sf "$W/runs.json" "$W/runs-link.json"
run_case calibrate_out_is_runs 2 "error: --out:" calibrate "$W/runs.json" --out "$W/runs.json"
run_case calibrate_out_is_link_to_runs 2 "error: --out:" calibrate "$W/runs-link.json" --out "$W/runs.json"
unchanged calibrate_refused_left_runs "$W/runs.json" "$W/runs.copy"

echo
echo "hostile_cli: $npass passed, $nfail failed, $nxfail known defects (xfail), $nxpass unexpectedly fixed (xpass)"
if [ $nfail -gt 0 ] || [ $nxpass -gt 0 ]; then
  echo "hostile_cli: FAILED: ${failures[*]}"
  exit 1
fi
exit 0
