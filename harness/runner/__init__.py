"""One run: `run` (what a run checks, and the `Runner` that performs it over the selected cases), `compare` (a case
against its baseline), `launches` and `launch_review` (launch commands as cases), `targets` and `config_writes` (the
program view), `around` (what runs a review and what it reads).

Owns: the run. May import: `harness.gates`, `harness.model`, `harness.composition`, `harness.readers`,
`harness.rules`, `harness.baselines`.
"""
