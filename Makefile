.PHONY: bench

# Performance against the YAML parse floor (issue 6); see scripts/bench.
bench:
	scripts/bench
