"""Base of every service's manager: the RPC endpoint plus its lifecycle hooks."""

from __future__ import annotations

from novalite.rpc import Target


class Manager:
    """Public methods are RPC methods `(self, ctx, **kwargs)`; `_private` ones are not."""

    target = Target(version="1.0")

    def __init__(self, host: str) -> None:
        self.host = host
        self.service_id: int | None = None  # set by the service once it is registered
        self.service_disabled = False  # as registered (os-services may change it later)
        self.service_new = False  # registered by this start: it never beat before

    @classmethod
    def prefetch_start(cls, managers: list[Manager]) -> None:
        """Read at once what `managers` (of this class, on as many hosts of one process)
        are about to read each at their start, and hand each its share."""

    @classmethod
    def pre_start_together(cls, managers: list[Manager]) -> None:
        """pre_start_hook of each of `managers` (of this class, registered, on as many
        hosts of one process), where a class may do their work together."""
        for manager in managers:
            manager.pre_start_hook()

    def init_host(self) -> None:
        """Recover what the previous process left, before the service is registered."""

    def pre_start_hook(self) -> None:
        """Run once registered (service_id set), before RPC is served: as Nova's, where a
        compute reports its nodes, so the first message it takes (a build queued for it
        while it was down) finds them."""

    def post_start_hook(self) -> None:
        """Run once RPC is being served."""

    def cleanup_host(self) -> None:
        """Release resources once RPC has stopped."""
