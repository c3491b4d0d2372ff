 #SUPERVISOR --allow fly
#SUPERVISORS --allow fly
## SUPERVISOR --allow fly
#SBATCHX -Q
	srun true
