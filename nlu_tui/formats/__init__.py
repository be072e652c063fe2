"""Suite file formats: the native YAML file and the formats of the tools nlu-tui replaces."""
