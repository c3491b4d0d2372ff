#!/bin/bash
#SBATCH -J train --nodes=4 --ntasks-per-node=8
#SBATCH --gres=gpu:8 --time=24:00:00 --open-mode=append --parsable
#SUPERVISOR --checkpoint-dir /scratch/run1/ckpt
#SUPERVISOR --allow requeue,reduce_batch_size --max-attempts 4
#SUPERVISOR --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM
#SUPERVISOR --stall-timeout 20s --notify mailto:a@example.org --notify https://hook.example.org/x

srun python train.py
#SUPERVISOR --max-attempts 9
