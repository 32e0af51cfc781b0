// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// parallelism.pipeline_layout: Megatron-Core's --pipeline-model-parallel-layout string, parsed into its virtual
/// pipeline stages (megatron/core/transformer/pipeline_parallel_layer_layout.py, PipelineParallelLayerLayout).
/// "Et*3|(tt|)*29,m|L": E embedding, t transformer layer, m multi-token-prediction layer, L loss, | a stage boundary,
/// (…)*n and x*n repeat, commas are cosmetic. Virtual stage j runs on pipeline rank j mod pp (chunk j div pp).

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

/// One virtual pipeline stage of a layout.
struct PipelineChunk {
    int layers = 0; ///< transformer layers ('t')
    int mtp = 0; ///< multi-token-prediction layers ('m')
    bool embedding = false; ///< holds the embedding ('E')
    bool loss = false; ///< holds the output layer and loss ('L')
    friend bool operator==(const PipelineChunk&, const PipelineChunk&) = default;
};

/// The virtual stages of a layout string in order, or `error` (a sentence) when the string is not one Megatron-Core
/// parses. Structure rules (counts against the model and pp) are validate()'s.
struct ParsedPipelineLayout {
    std::vector<PipelineChunk> chunks;
    char first = 0, last = 0; ///< the first and the last layer symbol of the whole layout (Megatron: E and L)
    std::string error;
};
[[nodiscard]] ParsedPipelineLayout parsePipelineLayout(std::string_view text);

} // namespace shardscope::core
