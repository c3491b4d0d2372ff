#!/bin/sh
#SUPERVISOR --progress-pattern '^step [0-9]+/'  # the step lines
#SUPERVISOR --checkpoint-dir "/scratch/my run" --checkpoint-pattern 'ckpt_*'
#SUPERVISOR --checkpoint-marker .done --allow set_env:NCCL_SOCKET_IFNAME=ib0
#SBATCH --no-requeue
#SBATCH --wrap="echo\ hi"
