"""Hook for onnx::SoftmaxCrossEntropyLoss: NegativeLogLikelihoodLoss's hook on its own port names."""
from opconform.generator.hooks.onnx._indexing import break_per_channel
from opconform.generator.hooks.onnx.negativeloglikelihoodloss import break_target_shape, break_targets, loss_inputs

inputs = loss_inputs(("scores", "labels", "weights"))
BREAK = {"labels_shape": break_target_shape("labels"),
         "labels_are_classes": break_targets("labels", "scores", without_ignore=True),
         "labels_are_classes_or_ignored": break_targets("labels", "scores"),
         "weights_per_class": break_per_channel("weights")}
