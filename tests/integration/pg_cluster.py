"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temporary folder, a unix
socket in that folder, a random port, no TCP listener. As root it runs as the postgres user (the
server refuses to run as root). Nothing needs to be running beforehand."""
import os
import pwd
import random
import shutil
import subprocess
import time


def pg_bin():
    for d in ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(found)
    raise SystemExit("FAIL: PostgreSQL's initdb not found (scripts/install_deps.sh installs postgresql)")


class Cluster:
    def __init__(self, work):
        self.bin = pg_bin()
        self.dir = os.path.join(work, "pg")
        os.makedirs(self.dir, exist_ok=True)
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.port = random.randint(20000, 60000)
        self.as_user = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chmod(work, 0o755)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run(["initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])

    def _run(self, args, check=True):
        cmd = self.as_user + [os.path.join(self.bin, args[0])] + args[1:]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {r.stdout}{r.stderr}")
        return r

    def options(self):
        return f"-p {self.port} -k {self.dir} -c listen_addresses='' -c fsync=off -c max_connections=60"

    def start(self):
        self._run(["pg_ctl", "-D", self.data, "-l", self.log, "-o", self.options(), "-w", "-t", "30", "start"])

    def stop(self, mode="fast"):
        self._run(["pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "30", "stop"], check=False)

    def restart(self):
        self._run(["pg_ctl", "-D", self.data, "-l", self.log, "-o", self.options(), "-m", "fast", "-w", "-t", "30",
                   "restart"])

    def url(self, password=None):
        pw = f"&password={password}" if password else ""
        return f"postgresql://postgres@/postgres?host={self.dir}&port={self.port}{pw}"

    def _psql_command(self):
        return self.as_user + [os.path.join(self.bin, "psql"), "-h", self.dir, "-p", str(self.port), "-U", "postgres",
                               "-d", "postgres", "-At"]

    def psql(self, sql):
        r = subprocess.run(self._psql_command() + ["-c", sql], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"psql: {r.stderr}")
        return r.stdout.strip()

    def psql_session(self):
        """A psql reading SQL from its stdin (a Popen with stdin=PIPE, text): one session held open,
        e.g. to keep a lock while something else runs."""
        return subprocess.Popen(self._psql_command(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)

    def wait_ready(self, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if subprocess.run([os.path.join(self.bin, "pg_isready"), "-h", self.dir, "-p", str(self.port)],
                              capture_output=True).returncode == 0:
                return True
            time.sleep(0.1)
        return False

    def destroy(self):
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)
