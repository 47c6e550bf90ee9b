"""Bodies of the server actions, as Nova validates them."""


def _any_value(action: str) -> dict:
    """Nova accepts any value for the actions without arguments (clients send null)."""
    return {
        "type": "object",
        "properties": {action: {}},
        "required": [action],
        "additionalProperties": False,
    }


start_server = _any_value("os-start")
stop_server = _any_value("os-stop")
pause = _any_value("pause")
unpause = _any_value("unpause")
suspend = _any_value("suspend")
resume = _any_value("resume")

reboot = {
    "type": "object",
    "properties": {
        "reboot": {
            "type": "object",
            "properties": {
                "type": {"type": "string",
                         "enum": ["HARD", "Hard", "hard", "SOFT", "Soft", "soft"]},
            },
            "required": ["type"],
            "additionalProperties": False,
        },
    },
    "required": ["reboot"],
    "additionalProperties": False,
}

# -1 and null mean the whole log; a string of digits counts as its number.
get_console_output = {
    "type": "object",
    "properties": {
        "os-getConsoleOutput": {
            "type": "object",
            "properties": {
                "length": {
                    "type": ["integer", "string", "null"],
                    "pattern": "^-?[0-9]+$",
                    "minimum": -1,
                },
            },
            "additionalProperties": False,
        },
    },
    "required": ["os-getConsoleOutput"],
    "additionalProperties": False,
}

trigger_crash_dump = {
    "type": "object",
    "properties": {"trigger_crash_dump": {"type": "null"}},
    "required": ["trigger_crash_dump"],
    "additionalProperties": False,
}

# Any string: Nova keeps no password, so it sets no rule on one.
change_password = {
    "type": "object",
    "properties": {
        "changePassword": {
            "type": "object",
            "properties": {"adminPass": {"type": "string"}},
            "required": ["adminPass"],
            "additionalProperties": False,
        },
    },
    "required": ["changePassword"],
    "additionalProperties": False,
}

reset_state = {
    "type": "object",
    "properties": {
        "os-resetState": {
            "type": "object",
            "properties": {"state": {"type": "string", "enum": ["active", "error"]}},
            "required": ["state"],
            "additionalProperties": False,
        },
    },
    "required": ["os-resetState"],
    "additionalProperties": False,
}
inject_network_info = _any_value("injectNetworkInfo")
restore = _any_value("restore")
force_delete = _any_value("forceDelete")

lock = _any_value("lock")
unlock = _any_value("unlock")
lock_v273 = {
    "type": "object",
    "properties": {
        "lock": {"oneOf": [
            {"type": "null"},
            {"type": "object",
             "properties": {"locked_reason": {"type": "string", "minLength": 1,
                                              "maxLength": 255}},
             "additionalProperties": False}]},
    },
    "required": ["lock"],
    "additionalProperties": False,
}

rescue = {
    "type": "object",
    "properties": {
        "rescue": {"type": ["object", "null"],
                   "properties": {"adminPass": {"type": "string"},
                                  "rescue_image_ref": {"type": "string", "format": "uuid"}},
                   "additionalProperties": False},
    },
    "required": ["rescue"],
    "additionalProperties": False,
}
unrescue = _any_value("unrescue")

_IMAGE_NAME = {"type": "string", "minLength": 1, "maxLength": 255,
               "pattern": r"^(?! )[^\x00-\x1f]*(?<! )$"}
_IMAGE_METADATA = {"type": "object",
                   "patternProperties": {"^[a-zA-Z0-9-_:. ]{1,255}$":
                                         {"type": "string", "maxLength": 255}},
                   "additionalProperties": False}

create_image = {
    "type": "object",
    "properties": {
        "createImage": {
            "type": "object",
            "properties": {"name": _IMAGE_NAME, "metadata": _IMAGE_METADATA},
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    "required": ["createImage"],
    "additionalProperties": False,
}

create_backup = {
    "type": "object",
    "properties": {
        "createBackup": {
            "type": "object",
            "properties": {
                "name": _IMAGE_NAME,
                "backup_type": {"type": "string"},
                # Nova's non_negative_integer: an integer, or a string of digits
                "rotation": {"type": ["integer", "string"], "pattern": "^[0-9]+$",
                             "minimum": 0},
                "metadata": _IMAGE_METADATA,
            },
            "required": ["name", "backup_type", "rotation"],
            "additionalProperties": False,
        },
    },
    "required": ["createBackup"],
    "additionalProperties": False,
}

shelve = _any_value("shelve")
shelve_offload = _any_value("shelveOffload")
unshelve = _any_value("unshelve")


def unshelve_for(version: tuple[int, int]) -> dict:
    """2.77: an availability zone may be named; 2.91: a host, or no zone (unpin)."""
    if version < (2, 77):
        return unshelve
    zone: dict = {"type": "string", "minLength": 1, "maxLength": 255}
    properties: dict = {"availability_zone": zone}
    if version >= (2, 91):
        properties = {"availability_zone": {"oneOf": [zone, {"type": "null"}]},
                      "host": {"type": "string", "minLength": 1, "maxLength": 255,
                               "pattern": "^[a-zA-Z0-9-._]*$"}}
    return {"type": "object",
            "properties": {"unshelve": {"oneOf": [
                {"type": "null"},
                {"type": "object", "properties": properties,
                 "additionalProperties": False}]}},
            "required": ["unshelve"], "additionalProperties": False}
