#
#SUPERVISOR --alow requeue
#SUPERVISOR --stall-timeout 5x
#SUPERVISOR --progress-pattern 'step ('
#SUPERVISOR --checkpoint-dir "/a
