"""One measured request of each shape a target takes, on the calling thread: ``InvokeEndpointWithResponseStream``,
``ConverseStream``, ``InvokeEndpoint`` (a whole response, or a classical model's ``payload``) and
``InvokeEndpointAsync`` (the input uploaded to S3 once, the output polled for), through one boto3 client
(:func:`make_client`) shared by every thread of a level.

Clock: ``time.perf_counter``. A request's times start when its first attempt's signed request goes to the
HTTP layer (botocore's ``before-send`` event), so TTFT, inter-token gaps and end-to-end latency measure the
service and the network, not the SDK's request building.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.formats import (
    LineStreamDecoder,
    StreamFormat,
    bedrock_observation,
    converse_messages,
    request_body,
    response_output_tokens,
    response_text,
)
from inference_loadtest.measure import StreamTimes
from inference_loadtest.options import LoadOptions
from inference_loadtest.prompts import Prompt
from inference_loadtest.stats import RequestResult
from inference_loadtest.target import Api, Target

THROTTLE_CODES = frozenset({"ThrottlingException", "Throttling", "ThrottledException", "TooManyRequestsException"})
"""Error codes counted as throttling (a request that still failed with one after its retries)."""


def make_client(
    service: str,
    *,
    pool: int,
    max_attempts: int = 4,
    read_timeout_s: float = 120.0,
    region: str | None = None,
    endpoint_url: str | None = None,
    aws_profile: str | None = None,
) -> Any:
    """A boto3 client from the standard configuration chain, sized for ``pool`` concurrent requests.

    Parameters
    ----------
    service
        ``sagemaker-runtime``, ``bedrock-runtime``, ``sagemaker``, ``bedrock`` or ``s3``.
    pool
        Connections kept (at least 10).
    max_attempts
        Attempts per request in botocore's ``standard`` retry mode. Default: 4 (3 retries with backoff).
    read_timeout_s
        Default: 120 seconds between bytes of a response.
    region, endpoint_url, aws_profile
        Default: what the environment and the shared config say (``AWS_REGION``, ``AWS_ENDPOINT_URL_*``,
        ``AWS_PROFILE``), as for any boto3 client.
    """
    import boto3
    from botocore.config import Config

    session = boto3.session.Session(profile_name=aws_profile, region_name=region)
    config = Config(
        max_pool_connections=max(pool, 10),
        retries={"mode": "standard", "total_max_attempts": max_attempts},
        read_timeout=read_timeout_s,
        connect_timeout=10,
        tcp_keepalive=True,
    )
    make: Any = session.client  # the service name is a runtime value, not one of the stubs' literals
    return make(service, endpoint_url=endpoint_url, config=config)


class Calls:
    """Sends one request of ``target``'s shape and measures it (:meth:`invoke`).

    The base of :class:`~inference_loadtest.runner.LoadTest`, which runs many of them per level; the parameters
    are its own.
    """

    def __init__(
        self,
        target: Target,
        options: LoadOptions,
        *,
        client: Any | None = None,
        s3: Any | None = None,
        async_input_s3_uri: str | None = None,
        async_poll_s: float = 1.0,
        async_timeout_s: float = 900.0,
    ) -> None:
        if target.api is Api.ASYNC and not async_input_s3_uri:
            raise InferenceConfigError("--async-input: required for an async endpoint; use s3://bucket/prefix/")
        self.target = target
        self.async_input_s3_uri = async_input_s3_uri
        self.async_poll_s = async_poll_s
        self.async_timeout_s = async_timeout_s
        self._uploaded: set[str] = set()
        self._uploads_lock = threading.Lock()
        self._s3 = s3
        self.options = options
        service = "bedrock-runtime" if target.api is Api.CONVERSE_STREAM else "sagemaker-runtime"
        pool = max([*options.concurrency, options.max_in_flight if options.open_loop() else 1])
        self.client = client or make_client(service, pool=pool)
        self._local = threading.local()
        self._stop = threading.Event()
        self._operation = {
            Api.STREAM: "InvokeEndpointWithResponseStream",
            Api.INVOKE: "InvokeEndpoint",
            Api.CONVERSE_STREAM: "ConverseStream",
            Api.ASYNC: "InvokeEndpointAsync",
        }[target.api]
        self.client.meta.events.register(f"before-send.*.{self._operation}", self._before_send)
        self.detected_format: StreamFormat | None = None

    @property
    def s3(self) -> Any:
        """The S3 client of async endpoints (input upload, output polling). Default: the standard chain."""
        if self._s3 is None:
            self._s3 = make_client("s3", pool=max([*self.options.concurrency, 10]))
        return self._s3

    # ------------------------------------------------------------------------------------------ timing
    def _before_send(self, **_: Any) -> None:
        if getattr(self._local, "sent", None) is None:
            self._local.sent = time.perf_counter()

    def _sent(self, fallback: float) -> float:
        sent: float | None = getattr(self._local, "sent", None)
        return sent if sent is not None else fallback

    # ------------------------------------------------------------------------------------------ one request
    def invoke(self, prompt: Prompt) -> RequestResult:
        """Send one request and measure it; never raises for a service or network error."""
        from botocore.exceptions import ClientError

        self._local.sent = None
        called = time.perf_counter()
        try:
            if self.target.api is Api.CONVERSE_STREAM:
                return self._converse(prompt, called)
            if self.target.api is Api.STREAM:
                return self._stream(prompt, called)
            if self.target.api is Api.ASYNC:
                return self._invoke_async(prompt, called)
            return self._invoke(prompt, called)
        except ClientError as exc:
            end = time.perf_counter()
            code = str(exc.response.get("Error", {}).get("Code") or "ClientError")
            retries = int(exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0))
            start = self._sent(called)
            return RequestResult(
                ok=False,
                e2e_s=end - start,
                error=code,
                throttled=code in THROTTLE_CODES,
                retries=retries,
                started=start,
                ended=end,
            )
        except Exception as exc:  # network, botocore and urllib3 errors (a stream cut mid-way): a failed request
            end = time.perf_counter()
            start = self._sent(called)
            return RequestResult(ok=False, e2e_s=end - start, error=type(exc).__name__, started=start, ended=end)

    def _stream(self, prompt: Prompt, called: float) -> RequestResult:
        body = request_body(self.target.format, prompt.text, prompt.max_tokens, history=prompt.history)
        resp = self.client.invoke_endpoint_with_response_stream(
            EndpointName=self.target.identifier, Body=body, ContentType="application/json"
        )
        state = StreamTimes(start=self._sent(called))
        decoder = LineStreamDecoder(self.target.format)
        events = resp["Body"]
        for event in events:
            part = event.get("PayloadPart")
            if part is None:
                continue
            state.observe(decoder.feed(part["Bytes"]), time.perf_counter())
            if state.error:
                events.close()
                break
        else:
            state.observe(decoder.close(), time.perf_counter())
        self.detected_format = decoder.format
        return self._with_id(
            state.result(time.perf_counter(), int(resp["ResponseMetadata"].get("RetryAttempts", 0))), resp
        )

    @staticmethod
    def _with_id(result: RequestResult, resp: dict[str, Any]) -> RequestResult:
        result.request_id = resp["ResponseMetadata"].get("RequestId")
        return result

    def _converse(self, prompt: Prompt, called: float) -> RequestResult:
        resp = self.client.converse_stream(
            modelId=self.target.identifier,
            messages=converse_messages(prompt.history, prompt.text),
            inferenceConfig={"maxTokens": prompt.max_tokens},
        )
        state = StreamTimes(start=self._sent(called))
        for event in resp["stream"]:
            state.observe(bedrock_observation(event), time.perf_counter())
        return self._with_id(
            state.result(time.perf_counter(), int(resp["ResponseMetadata"].get("RetryAttempts", 0))), resp
        )

    def _plain_body(self, prompt: Prompt) -> bytes:
        """The body of a non-streaming request: ``options.payload`` as given, else the LLM request JSON."""
        if self.options.payload is not None:
            return self.options.payload
        return request_body(self.target.format, prompt.text, prompt.max_tokens, stream=False, history=prompt.history)

    def _invoke(self, prompt: Prompt, called: float) -> RequestResult:
        resp = self.client.invoke_endpoint(
            EndpointName=self.target.identifier, Body=self._plain_body(prompt), ContentType=self.options.content_type
        )
        payload = resp["Body"].read()
        end = time.perf_counter()
        start = self._sent(called)
        count = response_output_tokens(payload)
        return RequestResult(
            text=response_text(payload),
            ok=True,
            e2e_s=end - start,
            ttft_s=end - start,  # without streaming the first token arrives with the whole response
            output_tokens=count or 0,
            output_tokens_from_server=count is not None,
            retries=int(resp["ResponseMetadata"].get("RetryAttempts", 0)),
            started=start,
            ended=end,
        )

    def _input_location(self, prompt: Prompt) -> str:
        """The S3 object holding ``prompt``'s request body, uploaded once per distinct prompt."""
        assert self.async_input_s3_uri is not None  # checked in __init__
        body = self._plain_body(prompt)
        bucket, _, prefix = self.async_input_s3_uri.removeprefix("s3://").partition("/")
        key = f"{prefix.rstrip('/')}/{hashlib.sha256(body).hexdigest()[:16]}.json".lstrip("/")
        with self._uploads_lock:
            if key not in self._uploaded:
                self.s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=self.options.content_type)
                self._uploaded.add(key)
        return f"s3://{bucket}/{key}"

    def _invoke_async(self, prompt: Prompt, called: float) -> RequestResult:
        """InvokeEndpointAsync, then poll the output (or failure) location: e2e is known to the poll interval."""
        from botocore.exceptions import ClientError

        location = self._input_location(prompt)
        self._local.sent = None
        resp = self.client.invoke_endpoint_async(
            EndpointName=self.target.identifier, InputLocation=location, ContentType=self.options.content_type
        )
        start = self._sent(called)
        deadline = start + self.async_timeout_s
        targets = [("output", resp["OutputLocation"]), ("failure", resp.get("FailureLocation"))]
        while time.perf_counter() < deadline and not self._stop.is_set():
            for kind, uri in targets:
                if not uri:
                    continue
                bucket, _, key = uri.removeprefix("s3://").partition("/")
                try:
                    obj = self.s3.get_object(Bucket=bucket, Key=key)
                except ClientError as exc:
                    if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                        continue
                    raise
                end = time.perf_counter()
                count = response_output_tokens(obj["Body"].read()) if kind == "output" else None
                return RequestResult(
                    ok=kind == "output",
                    e2e_s=end - start,
                    ttft_s=end - start,
                    output_tokens=count or 0,
                    output_tokens_from_server=count is not None,
                    error=None if kind == "output" else "AsyncInferenceFailure",
                    started=start,
                    ended=end,
                )
            time.sleep(self.async_poll_s)
        end = time.perf_counter()
        return RequestResult(ok=False, e2e_s=end - start, error="AsyncOutputTimeout", started=start, ended=end)
