"""What every novalite service process shares: the service loop around a manager (base),
how each service is assembled (assembly), the manager base class (manager) and whether a
service is up (liveness).
"""
