"""OpenVINO EmbeddingBagOffsetsSum-3: EmbeddingBagOffsets-15 in sum mode (the same snippet without
the reduction attribute)."""
from opconform.oracle.openvino.embeddingbagoffsets import run  # noqa: F401
