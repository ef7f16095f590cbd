"""OpenVINO EmbeddingBagPackedSum-3: EmbeddingBagPacked-15 in sum mode."""
from opconform.oracle.openvino.embeddingbagpacked import run  # noqa: F401
