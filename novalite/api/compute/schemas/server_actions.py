"""Bodies of the server power actions, as Nova validates them."""

# Nova accepts any value for os-start/os-stop (clients send null).
start_server = {
    "type": "object",
    "properties": {"os-start": {}},
    "required": ["os-start"],
    "additionalProperties": False,
}

stop_server = {
    "type": "object",
    "properties": {"os-stop": {}},
    "required": ["os-stop"],
    "additionalProperties": False,
}

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
