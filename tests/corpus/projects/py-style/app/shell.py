"""Running the report tool."""
import subprocess
import pickle


def run_report(name):
    return subprocess.call("report " + name, shell=True)


def load_state(blob):
    return pickle.loads(blob)


def connect(host, password="hunter2"):
    return {"host": host, "password": password}
