"""config-harness: golden-file regression harness for Hydra/OmegaConf config trees."""

__version__ = "0.1.0"
