"""Identity's errors, with Keystone's status codes and message texts."""

from __future__ import annotations

from http import HTTPStatus

from novalite.exception import NovaliteException


class IdentityError(NovaliteException):
    safe = True

    @property
    def title(self) -> str:
        return HTTPStatus(self.code).phrase


class ValidationError(IdentityError):
    code = 400
    msg_fmt = ("Expecting to find %(attribute)s in %(target)s. The server could not comply "
               "with the request since it is either malformed or otherwise incorrect. The "
               "client is assumed to be in error.")


class Unauthorized(IdentityError):
    code = 401
    msg_fmt = "The request you have made requires authentication."


class Forbidden(IdentityError):
    code = 403
    msg_fmt = "You are not authorized to perform the requested action: %(action)s."


class NotFound(IdentityError):
    code = 404
    msg_fmt = "Could not find %(type)s: %(id)s."


class TokenNotFound(NotFound):
    msg_fmt = "Failed to validate token"


class RoleAssignmentNotFound(NotFound):
    msg_fmt = ("Could not find role assignment with role: %(role_id)s, user or group: "
               "%(actor_id)s, project, domain, or system: %(target_id)s.")


class Conflict(IdentityError):
    code = 409
    msg_fmt = "Conflict occurred attempting to store %(type)s - %(details)s."
