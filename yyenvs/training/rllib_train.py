"""PPO self-play on RLlib: ``yyenvs train --backend rllib --config CONFIG [--ray-address ADDR]``.

Runs in the RLlib environment (``pip install -e ".[rllib]"``; ``.venv-rllib``
made by ``./dev test``).  The run is built from the same config file as the
project's own trainer (``training/config.py``); the keys it reads:

* ``game``, ``game_options``, ``seed``, ``run_dir``, ``total_timesteps`` and
  ``max_minutes`` (checked after each training iteration);
* ``ppo.*``: ``learning_rate``, ``gamma``, ``gae_lambda``, ``clip_range``,
  ``ent_coef``, ``vf_coef``, ``n_epochs`` (RLlib's ``num_epochs``),
  ``batch_size`` (its ``minibatch_size``), ``n_steps * num_envs`` (its
  ``train_batch_size_per_learner``) and ``net_arch`` (the hidden layers);
* ``rllib.mode``: ``selfplay``, the league recipe of
  :func:`yyenvs.integrations.rllib.selfplay_ppo_config` on the multi-agent env,
  or ``vector``, one learner seat against ``eval.opponents[0]`` on the batched
  env (``num_envs`` games per env runner); ``rllib.num_env_runners`` env
  runners (Ray actors, placed anywhere on the cluster);
* ``eval.opponents`` and ``eval.final_games``: at the end the trained ``main``
  module plays each opponent, seats alternating, and the results are printed
  with 95% Wilson intervals.

The final weights of ``main`` go to ``run_dir/rllib_main.safetensors`` (tensors
only, with the module's description as metadata); nothing is pickled.
``--ray-address`` connects to a running cluster; without it Ray starts on
this machine.
"""
from __future__ import annotations

import json
import os
import time

from yyenvs.training.config import ConfigError


def build_algo(cfg: dict):
    """RLlib's PPO algorithm for the config (the mapping of keys above)."""
    from yyenvs.integrations import rllib as yr
    ppo, rl, ev = cfg["ppo"], cfg["rllib"], cfg["eval"]
    hidden = tuple(ppo["net_arch"])
    if rl["mode"] == "selfplay":
        config = yr.selfplay_ppo_config(cfg["game"], cfg["game_options"], hidden, rl["num_env_runners"],
                                        rl["league_win_rate"])
    else:
        config = yr.vector_ppo_config(cfg["game"], cfg["game_options"], ev["opponents"][0], cfg["num_envs"],
                                      hidden, rl["num_env_runners"])
    config = (config.training(lr=ppo["learning_rate"], gamma=ppo["gamma"], lambda_=ppo["gae_lambda"],
                              clip_param=ppo["clip_range"], entropy_coeff=ppo["ent_coef"],
                              vf_loss_coeff=ppo["vf_coef"], num_epochs=ppo["n_epochs"],
                              minibatch_size=ppo["batch_size"],
                              train_batch_size_per_learner=ppo["n_steps"] * cfg["num_envs"])
              .debugging(seed=cfg["seed"]))
    return config.build_algo()


def run(cfg: dict, address: str | None = None, log=print) -> dict:
    import ray

    from yyenvs.evaluation.ratings import wilson_interval
    from yyenvs.agents import make_agent
    from yyenvs.evaluation.matches import play_match
    from yyenvs.games import make_core
    from yyenvs.integrations import rllib as yr

    rl, ev = cfg["rllib"], cfg["eval"]
    hidden = tuple(cfg["ppo"]["net_arch"])
    core = make_core(cfg["game"], **cfg["game_options"])
    final = os.path.join(cfg["run_dir"], "rllib_main.safetensors")
    if os.path.lexists(final):  # refuse before training, not after
        raise ConfigError(f"run_dir {cfg['run_dir']!r} holds {final!r} from an earlier run; a new run would "
                          "replace it: choose another run_dir")
    if not ray.is_initialized():
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False)
    algo = build_algo(cfg)
    os.makedirs(cfg["run_dir"], exist_ok=True)
    t0, steps, result = time.time(), 0, {}
    limit = 60.0 * cfg["max_minutes"] if cfg["max_minutes"] > 0 else float("inf")
    try:
        while steps < cfg["total_timesteps"] and time.time() - t0 < limit:
            result = algo.train()
            runners = result.get("env_runners", {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            extra = (f", main win rate {runners.get('main_win_rate', float('nan')):.2f}, league "
                     f"{result.get('league_size')}" if rl["mode"] == "selfplay" else
                     f", return {runners.get('episode_return_mean', float('nan')):.2f}")
            log(f"iteration {algo.iteration}: {steps} env steps, {time.time() - t0:.0f}s{extra}")
        elapsed = time.time() - t0
        main = algo.get_module(yr.MAIN if rl["mode"] == "selfplay" else "default_policy")
        _save_module(main, final, {"game": core.name, "options": json.dumps(core.options, default=str),
                                   "hidden": json.dumps(list(hidden)), "module": type(main).__name__,
                                   "env_steps": str(steps)})
        log(f"trained {steps} env steps in {elapsed:.0f}s ({steps / max(elapsed, 1e-9):.0f} steps/s); "
            f"weights of main in {final}")
        agent = yr.ModuleAgent(core, main)
        table = {}
        if ev["final_games"] >= 2:
            for k, name in enumerate(ev["opponents"]):
                r = play_match(core, agent, make_agent(name, core, 1000 + k), ev["final_games"], seed=cfg["seed"])
                n = r["wins"] + r["draws"] + r["losses"]
                lo, hi = wilson_interval(r["wins"], n)
                table[name] = r
                log(f"main vs {name}: {r['wins']}-{r['draws']}-{r['losses']} "
                    f"{100 * r['wins'] / n:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]")
        return {"steps": steps, "elapsed_s": elapsed, "final": final, "eval": table}
    finally:
        algo.stop()


def _save_module(module, path: str, metadata: dict) -> None:
    from safetensors.torch import save_file
    state = {k: v.detach().cpu().contiguous() for k, v in module.state_dict().items()}
    save_file(state, path, metadata=metadata)
