"""What a PPO policy's description may hold, as a checkpoint records it.

The network itself is :mod:`yyenvs.networks.ppo_network` (it needs torch); this
module is what :mod:`yyenvs.networks.checkpoint` checks a file's description by.
"""
from __future__ import annotations

#: the description's class name
PPO_CLASS = "FastMaskablePolicy"
#: the fields of a description (:func:`yyenvs.networks.ppo_network.network_spec`)
PPO_FIELDS = ("class", "net_arch", "activation", "cnn_channels", "action_features", "value_net")
#: the hidden layers' activation functions
ACTIVATIONS = ("relu", "tanh")


def check_fields(net) -> None:
    """Check a file's description field by field (``net``: the checkpoint reader's field checker,
    which refuses a field naming the file and the field)."""
    net.known(PPO_FIELDS)
    net.str("class", (PPO_CLASS,))
    net.int_list("net_arch", max_len=16)
    net.str("activation", ACTIVATIONS)
    net.int_list("cnn_channels", max_len=16)
    net.int("action_features", 0, 64)
    net.bool("value_net")
