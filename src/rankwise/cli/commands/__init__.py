"""The commands of ``rankwise``; each registers its parser and runs from parsed arguments."""
