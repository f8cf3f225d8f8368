"""A LocalStack Lambda runtime executor without Docker: each execution environment is the AWS Lambda
Runtime Interface Emulator (upstream RIE, built from Go modules by scripts/build-testbed.sh) running
Node.js with the Node runtime interface client (npm aws-lambda-ric), in this process tree.

LocalStack core's only executor is Docker: it runs LocalStack's fork of the RIE
(localstack/lambda-runtime-init, downloaded from GitHub, not on the Go module proxy) inside a
container per environment, and that fork calls back to LocalStack with each result. Upstream RIE
answers the Invoke API itself, so this executor sends each invocation there and returns the answer.
With it, CreateFunction reaches State Active, CloudFormation creates AWS::Lambda::Function, and
Invoke, event source mappings and function URLs run the function's real code.

Selected with LAMBDA_RUNTIME_EXECUTOR=rollouts-local; the binaries come from the environment:
ROLLOUTS_LAMBDA_RIE (aws-lambda-rie), ROLLOUTS_LAMBDA_NODE (node), ROLLOUTS_LAMBDA_RIC
(aws-lambda-ric's index.mjs). Node.js runtimes (zip packages) only; anything else fails to start
with the reason. Not emulated: the function's architecture (the host's runs), memory limits,
layers, extensions, X-Ray.
"""

import collections
import ctypes
import json
import logging
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

from localstack import config
from localstack.services.lambda_.invocation.lambda_models import FunctionVersion, InvocationResult
from localstack.services.lambda_.invocation.plugins import RuntimeExecutorPlugin
from localstack.services.lambda_.invocation.runtime_executor import LambdaRuntimeException, RuntimeExecutor

LOG = logging.getLogger(__name__)

INVOKE_PATH = "/2015-03-31/functions/function/invocations"
LOG_LINES = 2000
PR_SET_PDEATHSIG = 1


def _binaries():
    paths = {name: os.environ.get(f"ROLLOUTS_LAMBDA_{name}", "") for name in ("RIE", "NODE", "RIC")}
    missing = [f"ROLLOUTS_LAMBDA_{name}" for name, path in paths.items() if not path or not os.path.exists(path)]
    if missing:
        raise LambdaRuntimeException(f"the rollouts-local executor needs {', '.join(missing)} (paths of existing files)")
    return paths


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    """In the child before exec: SIGKILL it when LocalStack dies, however LocalStack ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _children(pid):
    """Direct children of `pid` (Linux /proc): RIE starts the runtime in a process group of its own."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


def _is_error_payload(body):
    """The runtime client reports a function error as {"errorType", "errorMessage", ...} with HTTP 200."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return False
    return isinstance(parsed, dict) and "errorType" in parsed and "errorMessage" in parsed


class LocalRuntimeExecutor(RuntimeExecutor):
    def __init__(self, id: str, function_version: FunctionVersion) -> None:
        super().__init__(id=id, function_version=function_version)
        self.process = None
        self.port = None
        self.output = collections.deque(maxlen=LOG_LINES)
        self.output_lock = threading.Lock()

    def start(self, env_vars: dict[str, str]) -> None:
        cfg = self.function_version.config
        if not (cfg.runtime or "").startswith("nodejs"):
            raise LambdaRuntimeException(f"runtime {cfg.runtime}: the rollouts-local executor runs Node.js zip functions only")
        binaries = _binaries()
        code_dir = str(cfg.code.get_unzipped_code_location())
        self.port = _free_port()
        env = {
            **{k: str(v) for k, v in env_vars.items()},
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LAMBDA_TASK_ROOT": code_dir,
            "_HANDLER": cfg.handler,
        }
        # Whatever marks this process tree (the test run's tag) marks the functions too.
        for key in ("ROLLOUTS_TEST_RUN_ID", "ROLLOUTS_LOCALSTACK_ID"):
            if key in os.environ:
                env[key] = os.environ[key]
        command = [
            binaries["RIE"],
            f"--runtime-interface-emulator-address=127.0.0.1:{self.port}",
            f"--runtime-api-address=127.0.0.1:{_free_port()}",
            binaries["NODE"], binaries["RIC"], cfg.handler,
        ]
        self.process = subprocess.Popen(
            command, cwd=code_dir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
        )
        threading.Thread(target=self._read_output, daemon=True).start()
        deadline = time.monotonic() + config.LAMBDA_RUNTIME_ENVIRONMENT_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LambdaRuntimeException(f"aws-lambda-rie exited with {self.process.returncode}: {self.get_logs()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise LambdaRuntimeException(f"aws-lambda-rie did not listen on 127.0.0.1:{self.port} in time")

    def _read_output(self):
        for line in iter(self.process.stdout.readline, b""):
            with self.output_lock:
                self.output.append(line.decode("utf-8", "replace"))

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        runtimes = _children(process.pid)
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for pid in runtimes:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def get_address(self) -> str:
        return "127.0.0.1"

    def get_endpoint_from_executor(self) -> str:
        # The function reaches LocalStack's gateway on loopback (AWS_ENDPOINT_URL=http://127.0.0.1:<port>).
        return "127.0.0.1"

    def get_runtime_endpoint(self) -> str:
        # Only LocalStack's own init calls back; upstream RIE answers the invoke request instead.
        return f"http://127.0.0.1:{config.GATEWAY_LISTEN[0].port}/_localstack_lambda/{self.id}"

    def invoke(self, payload: dict[str, str]) -> InvocationResult:
        if self.process is None:
            raise LambdaRuntimeException("invoke on a stopped execution environment")
        with self.output_lock:
            self.output.clear()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{INVOKE_PATH}",
            data=(payload.get("payload") or "").encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        timeout = int(self.function_version.config.timeout) + 5
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as e:
            body = e.read() or json.dumps({"errorType": "Runtime.ExitError", "errorMessage": f"RIE answered {e.code}"}).encode()
        return InvocationResult(
            request_id=payload["invoke-id"],
            payload=body,
            is_error=_is_error_payload(body),
            logs=self.get_logs(),
        )

    def get_logs(self) -> str:
        with self.output_lock:
            return "".join(self.output)

    @classmethod
    def prepare_version(cls, function_version: FunctionVersion) -> None:
        _binaries()
        if function_version.config.code:
            function_version.config.code.prepare_for_execution()

    @classmethod
    def cleanup_version(cls, function_version: FunctionVersion) -> None:
        pass

    @classmethod
    def validate_environment(cls) -> bool:
        try:
            _binaries()
            return True
        except LambdaRuntimeException as e:
            LOG.error("%s", e)
            return False


class LocalRuntimeExecutorPlugin(RuntimeExecutorPlugin):
    name = "rollouts-local"

    def load(self, *args, **kwargs):
        return LocalRuntimeExecutor
