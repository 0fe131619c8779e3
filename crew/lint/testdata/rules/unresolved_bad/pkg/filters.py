def only_reads(ctx, tool):
    return True
