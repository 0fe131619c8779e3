def only_read_tools(context, tool):
    return tool["name"].startswith(("read", "list"))
