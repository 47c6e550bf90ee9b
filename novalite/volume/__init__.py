"""The volume service (Cinder's): volumes, volume types, attachments and user messages in
the database, and a volume manager that keeps each volume's data as a file through its
backend and exports it to the computes that attach it.

The HTTP handlers (novalite.api.volume) call `api.py`, which checks and records a request
and casts the slow work to the manager over RPC (`rpcapi.py`); the manager
(`manager.py`) creates and deletes the data through the backend (`backend.py`) and sets
the volume's final status, recording a user message (`messages.py`) when it fails.

Attaching (`attach.py`, Cinder's attachments API as Nova uses it): an attachment is
reserved for a server, then connected to the compute's connector — the manager serves the
volume over NBD with a qemu-nbd of its own (`exports.py`) and answers the connection
info — then completed (`in-use`); deleting the volume's last attachment stops the
export. The volume's status follows its attachments (`attachments.py`). A volume of a
type with the `multiattach` extra spec `<is> True` is multiattach (Cinder's): reserved
from `in-use` too, so several servers attach it at once, all reading one export.
"""
