"""A local Ray cluster for the tests: a head (no CPUs for tasks) and N worker nodes on this
host, each `ray start --block` in its own session and temp dir, capped (1 CPU per worker node,
80 MB object stores). Stopping signals every process of those sessions (and only those):
SIGTERM, then SIGKILL after 10 s. Ray maps 127.0.0.1 to the host's own address
(ray._private.services.resolve_ip_for_localhost), so the nodes talk over that address.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

RAY_CLI = "import sys; from ray.scripts.scripts import main; sys.argv[0] = 'ray'; sys.exit(main())"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, workers=2, cpus=1, env=None):
        self.py = sys.executable  # the workers run this interpreter (it has twinvmaf)
        self.tmp = tempfile.mkdtemp(prefix="tvray", dir="/tmp")  # short: socket path limits
        self.workers, self.cpus = workers, cpus
        self.env = dict(os.environ, **(env or {}))
        self.env.pop("RAY_ADDRESS", None)
        # a busy 2-core machine: the raylet waits longer for its agents to come up
        self.env.setdefault("RAY_agent_register_timeout_ms", "180000")
        self.nodes = []
        self.address = None
        self.keep_logs = False

    def _node(self, name, args):
        log = open(os.path.join(self.tmp, name + ".log"), "w")
        ports = ["--dashboard-agent-listen-port", str(free_port()),
                 "--dashboard-agent-grpc-port", str(free_port()),
                 "--runtime-env-agent-port", str(free_port()),
                 "--metrics-export-port", str(free_port())]
        p = subprocess.Popen([self.py, "-c", RAY_CLI, "start", "--block", "--disable-usage-stats",
                              "--node-ip-address", "127.0.0.1", "--object-store-memory",
                              str(80 * 1024 * 1024), "--temp-dir", os.path.join(self.tmp, name)]
                             + ports + args, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=self.env, start_new_session=True)
        log.close()
        self.nodes.append(p)
        return p

    def _wait_started(self, name, t0, timeout):
        log = os.path.join(self.tmp, name + ".log")
        while "Ray runtime started" not in open(log, errors="replace").read():
            if self.nodes[-1].poll() is not None or time.monotonic() - t0 > timeout:
                raise RuntimeError(f"the {name} node did not start; its log: {log}")
            time.sleep(0.5)

    def start(self, timeout=300):
        t0 = time.monotonic()
        port = free_port()
        self._node("head", ["--head", "--port", str(port), "--num-cpus", "0",
                            "--include-dashboard", "false"])
        self.address = f"127.0.0.1:{port}"
        # workers join once the head is up (they give up after a while without a GCS)
        self._wait_started("head", t0, timeout)
        for i in range(self.workers):  # one at a time: less contention on a small machine
            for attempt in range(3):
                # on a loaded machine a raylet may give up waiting for its agent: retried
                name = f"worker{i + 1}" + (f"_retry{attempt}" if attempt else "")
                self._node(name, ["--address", self.address, "--num-cpus", str(self.cpus)])
                try:
                    self._wait_started(name, t0, timeout)
                    break
                except RuntimeError:
                    if attempt == 2:
                        raise
                    print(f"{name} did not start; trying again", flush=True)
                    self._kill_session(self.nodes.pop())
        # ready when the head lists every node alive
        probe = ("import ray, sys, time\n"
                 f"ray.init(address={self.address!r}, log_to_driver=False)\n"
                 "t = time.monotonic()\n"
                 f"while sum(n['Alive'] for n in ray.nodes()) < {self.workers + 1}:\n"
                 "    time.sleep(0.5)\n"
                 f"    if time.monotonic() - t > {timeout}: sys.exit('nodes missing')\n"
                 "print(ray.cluster_resources())\n")
        p = subprocess.run([self.py, "-c", probe], env=self.env, capture_output=True, text=True,
                           timeout=timeout)
        dead = [n.args[4:6] for n in self.nodes if n.poll() is not None]
        if p.returncode or dead:
            raise RuntimeError(f"cluster did not start ({p.stderr.strip()[-500:]}); logs in "
                               f"{self.tmp}")
        print(f"ray cluster up at {self.address} in {time.monotonic() - t0:.0f} s: "
              f"{p.stdout.strip()}", flush=True)

    def _kill_session(self, node):
        for pid in self.session_pids({node.pid}):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        node.wait()

    def session_pids(self, sids=None):
        """Every process in the nodes' sessions (ray start and what it started)."""
        sids = sids or {n.pid for n in self.nodes}
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) in sids and fields[0] != "Z":
                pids.append(int(d))
        return pids

    def stop(self):
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            for pid in self.session_pids():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            t = time.monotonic()
            while time.monotonic() - t < wait:
                for n in self.nodes:
                    n.poll()
                if not self.session_pids():
                    break
                time.sleep(0.2)
        for n in self.nodes:
            try:
                n.wait(5)
            except subprocess.TimeoutExpired:
                pass
        left = self.session_pids()
        if self.keep_logs:
            print(f"ray logs kept in {self.tmp}", flush=True)
        else:
            subprocess.run(["rm", "-rf", self.tmp])
        print(f"ray cluster stopped{f' ({len(left)} processes left)' if left else ''}",
              flush=True)
        return not left

    def __enter__(self):
        # ctest's timeout sends SIGTERM: stop the nodes on the way out
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
        try:
            self.start()
        except BaseException:
            self.keep_logs = True
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
