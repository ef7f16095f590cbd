"""Oracle modules for this dialect: one per operator, named after it in lower case."""
