def reads(context, tool): return True
