"""OTLP attribute values as the receiver stores them (protobuf's JSON form), read back into Python
values: shared by otlp_check.py and otlp_serve_health.py."""


def value(any_value):
    for key in ("string_value", "bool_value", "double_value"):
        if key in any_value:
            return any_value[key]
    if "int_value" in any_value:
        return int(any_value["int_value"])
    return None


def attributes(items):
    return {item["key"]: value(item.get("value", {})) for item in items or []}
