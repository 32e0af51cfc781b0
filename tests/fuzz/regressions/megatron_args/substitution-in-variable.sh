ARGS="--num-layers $(python -c 'print(2)') --hidden-size 64"
torchrun pretrain_gpt.py $ARGS
