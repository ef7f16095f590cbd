"""Command modules: thin wiring of the stages, one per `opconform` subcommand."""
