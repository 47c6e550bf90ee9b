"""Who is asking, as the data layer needs it: the project, and whether it sees all."""

from __future__ import annotations

import dataclasses

from novalite.context import RequestContext


@dataclasses.dataclass(frozen=True)
class Scope:
    project_id: str
    is_admin: bool = False

    @classmethod
    def of(cls, ctx: RequestContext) -> Scope:
        return cls(ctx.project_id or "", ctx.is_admin)

    def owns(self, project_id: str) -> bool:
        return self.is_admin or project_id == self.project_id


ADMIN = Scope("", True)
