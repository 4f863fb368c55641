"""What the Python-client e2e scripts share: TAP-style checks and one apiserver on a free port."""
import subprocess
import sys

failures = []
passed = []


def check(name, condition, detail=""):
    print(("ok - " if condition else "not ok - ") + name + ("" if condition else f"\n    {detail}"))
    (passed if condition else failures).append(name)


def summary():
    """Prints the count and returns the exit status."""
    print(f"{len(passed)} passed, {len(failures)} failed")
    return 1 if failures else 0


def start_server(binary, data_dir):
    server = subprocess.Popen([binary, "apiserver", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ready = server.stdout.readline().strip()
    if not ready.startswith("listening on http://"):
        server.kill()
        sys.exit(f"apiserver did not start: {ready!r}")
    return server, ready[len("listening on "):]
