"""Where runs execute and how they are recorded: executors (local threads or
Ray tasks), the shared ``pypddl.run/1`` JSONL records, task references."""
