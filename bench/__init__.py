"""The project's benchmark: `python -m bench --quick|--full` measures every technique the site teaches."""
