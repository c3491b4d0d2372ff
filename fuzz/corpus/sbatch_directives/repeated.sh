#SUPERVISOR --allow requeue
#SUPERVISOR --allow exclude_node
#SUPERVISOR --knob batch_size=64:env=BS
#SUPERVISOR --knob workers=8:env=NW
#SUPERVISOR --max-attempts 2
#SUPERVISOR --max-attempts 3
