"""config-harness: golden-file regression harness for Hydra/OmegaConf config trees."""

__version__ = "0.2.0"
