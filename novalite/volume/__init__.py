"""The volume service (Cinder's): volumes, volume types and user messages in the database,
and a volume manager that keeps each volume's data as a file through its backend.

The HTTP handlers (novalite.api.volume) call `api.py`, which checks and records a request
and casts the slow work to the manager over RPC (`rpcapi.py`); the manager
(`manager.py`) creates and deletes the data through the backend (`backend.py`) and sets
the volume's final status, recording a user message (`messages.py`) when it fails.
"""
