.PHONY: install test lint typecheck bench demo check

install:
	python3 -m pip install -e ".[test]"

test:
	python3 -m pytest

lint:
	ruff check . && ruff format --check .

typecheck:
	pyright

bench:
	python3 -m bench

demo:
	inspector demo

check: lint typecheck test
