"""ai.onnx.ml DictVectorizer: Y[i] is X's value for the key vocabulary[i], zero where X has no
such key (for string values the policy missing_string says what zero is: the text does not)."""
import numpy as np

from opconform import containers


def run(spec, inputs, attributes, policies):
    x = inputs[0]
    vocabulary = list(attributes["string_vocabulary"] if "string_vocabulary" in attributes else attributes["int64_vocabulary"])
    given = x.as_dict()
    if x.values.dtype == object:
        zero = "" if policies["missing_string"] == "empty" else "0"
        return (np.array([str(given.get(w, zero)) for w in vocabulary], dtype=object),)
    out = np.zeros(len(vocabulary), dtype=x.values.dtype)
    for i, w in enumerate(vocabulary):
        if w in given:
            out[i] = given[w]
    return (out,)
