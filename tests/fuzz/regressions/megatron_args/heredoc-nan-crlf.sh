#!/bin/bash
cat <<EOF
--tensor-model-parallel-size 8
EOF
torchrun pretrain_gpt.py --num-layers 2 \
 --hidden-size 64 --num-attention-heads 4 --hidden-dropout nan
