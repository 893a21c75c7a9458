"""The script reader on the forms verl's own launch scripts use (examples/ at the bundle's five commits).

Each snippet is a literal shortened from a real script's shape: parameter arrays, `${VAR:-default}` knobs,
arithmetic, a launcher chosen in an `if`, `case` on the device, `$1`/`shift`/`$@` in the SFT scripts, a
`$(date)` in a run name, `ray job submit --`. Nothing runs: what a script would compute at run time stays unknown.
"""

from __future__ import annotations

from harness.readers.bash import Launch, launches_in


def read(script: str) -> list[Launch]:
    """The launches of `examples/run.sh`, whose entry points are `verl.` modules."""
    return launches_in("examples/run.sh", script.encode(), lambda entry, is_module: is_module and entry.startswith("verl."), readings=True)


def overrides(launch: Launch) -> list[tuple[str, int]]:
    return [(o.text, o.line) for o in launch.overrides]


def test_parameter_arrays_knobs_and_arithmetic_expand_as_bash_would():
    (launch,) = read(
        "set -xeuo pipefail\n"  # 1
        "max_prompt_length=${MAX_PROMPT_LENGTH:-2048}\n"
        "max_response_length=${MAX_RESPONSE_LENGTH:-8192}\n"
        "save_freq=${SAVE_FREQ:--1}\n"
        "actor_ppo_max_token_len=$(((max_prompt_length + max_response_length) * 2))\n"  # 5
        "DATA=(\n"
        "    data.max_prompt_length=${max_prompt_length}\n"
        "    data.truncation='error'\n"
        ")\n"
        "MODEL=(\n"  # 10
        '    actor_rollout_ref.model.path="${MODEL_PATH:-Qwen/Qwen3-8B}"\n'
        ")\n"
        "python3 -m verl.trainer.main_ppo \\\n"
        '    "${DATA[@]}" \\\n'
        '    "${MODEL[@]}" \\\n'  # 15
        "    actor_rollout_ref.actor.ppo_max_token_len_per_gpu=${actor_ppo_max_token_len} \\\n"
        '    trainer.save_freq="${save_freq}" \\\n'
        '    trainer.logger=\'["console","wandb"]\' "$@"\n'
    )
    assert (launch.entry, launch.is_module, launch.line, launch.error) == ("verl.trainer.main_ppo", True, 13, "")
    # An array element keeps the line it is written on; quotes are gone, as bash removes them.
    assert overrides(launch) == [
        ("data.max_prompt_length=2048", 7),
        ("data.truncation=error", 8),
        ("actor_rollout_ref.model.path=Qwen/Qwen3-8B", 11),
        ("actor_rollout_ref.actor.ppo_max_token_len_per_gpu=20480", 16),
        ("trainer.save_freq=-1", 17),
        ('trainer.logger=["console","wandb"]', 18),
    ]
    assert all(not o.unknown for o in launch.overrides)


def test_the_launcher_an_if_chooses_is_the_one_a_plain_run_takes_with_its_config_flags():
    launch, other = read(
        "LAUNCH=(python)\n"
        "RAY=(ray_kwargs.ray_init.runtime_env.py_executable=null)\n"
        'if [ "${VERL_USE_UV:-1}" != 0 ] && [ "${DEVICE:-gpu}" = gpu ]; then\n'
        "    LAUNCH=(uv run --frozen --all-packages --extra sglang python)\n"
        '    RAY=(ray_kwargs.ray_init.runtime_env.py_executable="uv -v run --frozen")\n'
        "fi\n"
        '"${LAUNCH[@]}" -m verl.experimental.fully_async_policy.fully_async_main \\\n'
        "    --config-path=config \\\n"
        "    --config-name='fully_async_ppo_megatron_trainer.yaml' \\\n"
        '    "${RAY[@]}"\n'
    )
    assert (launch.entry, launch.config_path, launch.config_name) == (
        "verl.experimental.fully_async_policy.fully_async_main",
        "config",
        "fully_async_ppo_megatron_trainer.yaml",
    )
    assert overrides(launch) == [("ray_kwargs.ray_init.runtime_env.py_executable=uv -v run --frozen", 5)]
    # A run on another device takes the other way: read too, as the same launch under that condition (issue 51).
    assert (other.index, other.environment, other.when) == (1, (("DEVICE", None),), "only when DEVICE is set, not to gpu")
    assert overrides(other) == [("ray_kwargs.ray_init.runtime_env.py_executable=null", 2)]
    # The other spelling of Hydra's flags, behind an environment prefix, nohup and a redirect, in the background.
    first, second = read(
        "PYTHONUNBUFFERED=1 nohup python3 -m verl.trainer.main_ppo --config-name ppo_megatron_trainer a.b=1 > out.log 2>&1 &\n"
        "python3 -m verl.trainer.main_ppo -cn=sft a.c=2 2>&1 | tee logs/run.log\n"
    )
    assert [(x.config_name, overrides(x)) for x in (first, second)] == [("ppo_megatron_trainer", [("a.b=1", 1)]), ("sft", [("a.c=2", 2)])]


def test_a_case_on_the_device_takes_the_branch_its_default_selects():
    script = (
        "DEVICE=${DEVICE:-%s}\n"
        'case "${DEVICE}" in\n'
        "    gpu)\n"
        "        ;;\n"
        "    npu)\n"
        "        export HCCL_CONNECT_TIMEOUT=1500\n"
        "        n_devices_per_node=16\n"
        "        ;;\n"
        '    *)\n        echo "Unsupported DEVICE=${DEVICE}." >&2\n        exit 1\n        ;;\n'
        "esac\n"
        "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=${n_devices_per_node:-8}\n"
    )
    gpu, on_npu = read(script % "gpu")
    npu, on_gpu = read(script % "npu")
    assert [o.text for o in gpu.overrides] == ["trainer.n_gpus_per_node=8"]
    assert [o.text for o in npu.overrides] == ["trainer.n_gpus_per_node=16"]
    # Each default's other device is the same launch under that condition (any other device stops at `exit 1`).
    assert (on_npu.when, [o.text for o in on_npu.overrides]) == ("only when DEVICE=npu", ["trainer.n_gpus_per_node=16"])
    assert (on_gpu.when, [o.text for o in on_gpu.overrides]) == ("only when DEVICE=gpu", ["trainer.n_gpus_per_node=8"])


def test_the_sft_scripts_positional_arguments_stay_unknown_and_messages_show_the_scripts_text():
    (launch,) = read(
        "set -x\n"
        'if [ "$#" -lt 2 ]; then\n'
        '    echo "Usage: run_qwen_05_peft.sh <nproc_per_node> <save_path> [other_configs...]"\n'
        "    exit 1\n"
        "fi\n"
        "nproc_per_node=$1\n"
        "save_path=$2\n"
        "shift 2\n"
        "torchrun --standalone --nnodes=1 --nproc_per_node=$nproc_per_node \\\n"
        "     -m verl.trainer.sft_trainer \\\n"
        "    data.train_files=$HOME/data/gsm8k/train.parquet \\\n"
        "    trainer.default_local_dir=$save_path \\\n"
        "    trainer.total_epochs=1 $@ \\\n"
        "    model.lora_rank=32\\\n"  # no space before the backslash: still two words
        "    model.lora_alpha=16\n"
    )
    assert (launch.entry, launch.line) == ("verl.trainer.sft_trainer", 9)
    assert [(o.shown, o.unknown) for o in launch.overrides] == [
        ("data.train_files=$HOME/data/gsm8k/train.parquet", ("$HOME",)),
        ("trainer.default_local_dir=$save_path", ("$2",)),
        ("trainer.total_epochs=1", ()),
        ("model.lora_rank=32", ()),
        ("model.lora_alpha=16", ()),
    ]
    # Hydra is given a placeholder that parses as a plain string, so the key and the form are still checked.
    assert launch.overrides[1].text == "trainer.default_local_dir=__unset_2__"


def test_a_run_name_built_from_date_keeps_a_placeholder_and_names_both_commands():
    (launch,) = read(
        "exp_name=qwen3_8b\n"
        "start_time=$(date +%Y%m%d)_$(date +%H%M%S)\n"
        "python3 -m verl.trainer.main_ppo trainer.experiment_name=${exp_name}_${start_time}\n"
    )
    (override,) = launch.overrides
    assert override.unknown == ("$(date +%Y%m%d)", "$(date +%H%M%S)")
    assert override.shown == "trainer.experiment_name=${exp_name}_${start_time}"
    assert override.text.startswith("trainer.experiment_name=qwen3_8b___unset_date") and "$(" not in override.text


def test_a_comment_inside_a_continued_command_ends_it_as_in_bash():
    """verl's scripts comment out an override mid-command: bash passes nothing after the comment, nor does the reader."""
    (launch,) = read("python3 -m verl.trainer.main_ppo \\\n    a.b=1 \\\n    # a.c=2 \\\n    a.d=3\n")
    assert overrides(launch) == [("a.b=1", 2)]


def test_ray_job_submit_and_a_loop_run_the_entry_point_behind_them():
    (submitted,) = read(
        'ray job submit --address="http://127.0.0.1:8265" \\\n'
        "    --runtime-env=verl/trainer/runtime_env.yaml \\\n"
        "    --no-wait \\\n"
        "    -- \\\n"
        "    python3 -m verl.trainer.main_ppo \\\n"
        "    trainer.nnodes=2\n"
    )
    assert (submitted.entry, overrides(submitted)) == ("verl.trainer.main_ppo", [("trainer.nnodes=2", 6)])
    looped = read("export VLLM_USE_V1=1\nfor seed in 1 2; do\n    python3 -m verl.trainer.main_ppo trainer.seed=$seed\ndone\n")
    # One launch per pass, as bash runs them (issue 51: never only the first value).
    assert [overrides(x) for x in looped] == [[("trainer.seed=1", 3)], [("trainer.seed=2", 3)]]


def test_programs_that_are_no_entry_point_are_no_launch():
    assert read("python3 -c 'import verl'\npip install -e .\npython3 -m pytest tests\n") == []


def test_a_hydra_delete_is_read_as_written_and_only_a_home_folder_stays_unknown():
    (launch,) = read(
        "python3 -m verl.trainer.main_ppo \\\n    ~trainer.epochs \\\n    ~data.val_files=x \\\n    trainer.default_local_dir=~/ckpt\n"
    )
    assert overrides(launch)[:2] == [("~trainer.epochs", 2), ("~data.val_files=x", 3)]
    # A home folder is not known: the word's key stays unknown, as before.
    (home,) = read("python3 -m verl.trainer.main_ppo ~/conf/x=1\n")
    assert home.overrides == () and home.error == "`~/conf/x=1` has a key that is not known (~)"


def test_a_launch_wrapped_in_a_function_is_read_where_it_is_called_with_its_arguments():
    """A launch in a shell function was read once where written, without its arguments (`"$@"` gave nothing): a
    pull request wrapping verl's launch in a function showed 42 changed values, 41 of them false."""
    first, second = read(
        "run_ppo() {\n"
        "    local engine=$1\n"
        "    shift\n"
        '    python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.strategy="$engine" "$@"\n'
        "}\n"
        "run_ppo fsdp trainer.total_epochs=2 \\\n"
        "    data.train_batch_size=${BATCH:-256}\n"
        "run_ppo megatron\n"
    )
    assert (first.line, overrides(first)) == (
        4,
        [("actor_rollout_ref.actor.strategy=fsdp", 4), ("trainer.total_epochs=2", 6), ("data.train_batch_size=256", 7)],
    )
    assert overrides(second) == [("actor_rollout_ref.actor.strategy=megatron", 4)]
    assert not first.only_when and not second.only_when
    # A function never called is still read for its launch, once, and says it runs only when called.
    (uncalled,) = read("f() { python3 -m verl.trainer.main_ppo a=$1; }\n")
    assert (uncalled.only_when, uncalled.overrides[0].shown) == ("only when f is called", "a=$1")


def test_set_dashdash_sets_the_arguments_that_follow():
    (launch,) = read('set -- actor_rollout_ref.rollout.n=1 "$@"\npython3 -m verl.trainer.main_ppo a.b=1 "$@"\n')
    assert overrides(launch) == [("a.b=1", 2), ("actor_rollout_ref.rollout.n=1", 1)]


def test_the_branch_a_plain_run_skips_is_named_by_the_variables_that_would_take_it():
    taken, skipped = read(
        'if [ "${VERL_USE_UV:-1}" != 0 ]; then\n'
        "    python3 -m verl.trainer.main_ppo a.b=1\n"
        "else\n"
        "    python3 -m verl.trainer.main_ppo a.b=2\n"
        "fi\n"
    )
    # Read in file order: the `else` (not taken) first is not how bash runs, but both are named; the taken one plainly.
    by_value = {o.text: launch.only_when for launch in (taken, skipped) for o in launch.overrides}
    assert by_value == {"a.b=1": "", "a.b=2": 'only when VERL_USE_UV=... (`[ "${VERL_USE_UV:-1}" != 0 ]` fails)'}


def test_bash_stops_at_an_unset_variable_under_set_u_and_at_exit():
    """16bdafaad's parent: `DEVICE: unbound variable` stopped bash before the launch, which was counted as composing."""
    before, after, on_npu = read(
        "set -euo pipefail\npython3 -m verl.trainer.main_ppo a=${DEVICE:-gpu}\n"
        'if [ "$DEVICE" == npu ]; then X=1; fi\npython3 -m verl.trainer.main_ppo b=1\n'
    )
    assert (before.stops, after.stops) == ("", "examples/run.sh:3: DEVICE: unbound variable (`set -u`)")
    # With DEVICE=npu (the test's other way) bash runs on: the first launch is read under it too.
    assert (on_npu.index, on_npu.when, overrides(on_npu), on_npu.stops) == (1, "only when DEVICE=npu", [("a=npu", 2)], "")
    (exited,) = read("exit 0\npython3 -m verl.trainer.main_ppo b=1\n")
    assert exited.stops == "examples/run.sh:1: `exit 0`"
    # Without `set -u`, or for a variable bash always has, nothing stops.
    assert [x.stops for x in read("echo $DEVICE\nset -u\necho $HOME\npython3 -m verl.trainer.main_ppo b=1\n")] == [""]
    # verl's FSDP_APPLY_MODULES: quoted parts joined by `\\`-newlines are one word, one assignment, as in bash.
    (joined,) = read("set -u\nM='{a:{},'\\\n'b:{}}'\npython3 -m verl.trainer.main_ppo \\\n    x.m=$M \\\n    k='a'\\\n'b'\n")
    assert (joined.stops, overrides(joined)) == ("", [("x.m={a:{},b:{}}", 5), ("k=ab", 6)])


def test_a_word_split_into_tokens_after_a_continuation_is_one_word_as_bash_reads_it():
    """Found by the thorough hypothesis profile: after `$A\\` the grammar made `${A}`, `==` and `${A}` separate
    tokens of a command, so `E` was never assigned; bash assigns `:==` (checked with bash itself)."""
    script = "A=''\nE=$A\\\n:\\\n$A\\\n==$A\npython3 -m app.main e=$E\n"
    (launch,) = launches_in("s.sh", script.encode(), lambda *_: True)
    assert [o.text for o in launch.overrides] == ["e=:=="]


def test_an_override_in_a_multi_line_double_quoted_string_keeps_its_own_line():
    """verl's fully_async scripts gather overrides in `TRAINER_CONFIG="...\\` strings of many lines, then expand
    `${TRAINER_CONFIG}` unquoted: each override is where its key is written, whether its line ends with `\\` (bash
    joins the lines) or not (a newline bash splits on), and beside an expansion on the same line (issue 56)."""
    (launch,) = read(
        "test_freq=5\n"  # 1
        'TRAINER_CONFIG="\n'
        "    trainer.critic_warmup=0 \\\n"
        "    trainer.logger=console \\\n"
        "    trainer.test_freq=${test_freq} \\\n"  # 5
        "    trainer.total_epochs=2\n"
        '    trainer.nnodes=1"\n'
        "PLAIN='data.a=1\n"
        "    data.b=2'\n"
        "python3 -m verl.trainer.main_ppo ${TRAINER_CONFIG} $PLAIN trainer.save_freq=-1\n"  # 10
    )
    assert overrides(launch) == [
        ("trainer.critic_warmup=0", 3),
        ("trainer.logger=console", 4),
        ("trainer.test_freq=5", 5),
        ("trainer.total_epochs=2", 6),
        ("trainer.nnodes=1", 7),
        ("data.a=1", 8),
        ("data.b=2", 9),
        ("trainer.save_freq=-1", 10),
    ]


def test_a_crlf_line_keeps_its_carriage_return_in_the_last_word_as_bash_does():
    r"""`LR=3\r` sets `3\r`; `\` before `\r\n` escapes the `\r` (an argument) and continues nothing; a script holding
    the byte that stands for `\r` while parsing is not read, never read back with a `\r` it does not hold."""
    source = b"LR=3\r\npython -m app.main trainer.lr=$LR \\\r\n  trainer.name=b\r\n"
    (launch,) = launches_in("run.sh", source, lambda entry, is_module: entry == "app.main")
    assert [o.text for o in launch.overrides] == ["trainer.lr=3\r", "\r"]
    (refused,) = launches_in("odd.sh", b"X=a\x02\npython -m app.main x=$X\n", lambda entry, is_module: True)
    assert refused.error == "odd.sh:1 holds the control byte 0x02, which is not read"
    (sourced,) = launches_in("run.sh", b"source ./env.sh\npython -m app.main x=$X\n", lambda e, m: True, read=lambda path: b"X=a\x02\n")
    assert sourced.error.endswith("`source ./env.sh` (line 1): it holds the control byte 0x02, which is not read")
