"""The hostile-input corpus: configs a new or a hostile user writes, each with its expected verdict, key path
and problem kind. ``test_corpus.py`` plans each one and synthesizes it, and both must agree.

A case's ``text`` is the file's content (bytes where the encoding is the point). ``path`` is the key path
of the expected problem (``<file>``: the file itself); ``code`` its kind (``inference_constructs.errors.CODES``).
"""

from __future__ import annotations

from dataclasses import dataclass

CATEGORIES = (
    "yaml-encoding",
    "types-ranges",
    "names",
    "tags",
    "arns",
    "ids-duplicates",
    "cross-field",
    "size-expansion",
)
FILE = "<file>"


@dataclass(frozen=True)
class Case:
    """One corpus config: accepted when ``code`` is None, else refused with ``code`` at ``path``."""

    id: str
    category: str
    text: str | bytes
    path: str | None = None
    code: str | None = None

    @property
    def accepted(self) -> bool:
        """True when plan and synth must both accept the config."""
        return self.code is None


SERVERLESS = "{name: churn, type: serverless, model: {source: s3, s3_uri: 's3://acme-ml/m.tar.gz'}, serving: sklearn}"
CPU_RT = (
    "{name: risk, model: {source: s3, s3_uri: 's3://acme-ml/m.tar.gz'}, serving: sklearn, capacity: {min: 1, max: 2}}"
)
HAIKU = "anthropic.claude-3-haiku-20240307-v1:0"
ROLE = "arn:aws:iam::111122223333:role/app"
OTHER_ROLE = "arn:aws:iam::444455556666:role/app"
MODEL = "s3://acme-ml/m.tar.gz"
SUBNET = "subnet-0123456789abcdef0"
SG = "sg-0123456789abcdef0"
CRON = "cron(0 7 ? * MON-FRI *)"
BUDGET = "cost: {{budget: {{monthly_limit_usd: 10, notify_email: a@b.co, deny_role_arns: [{}]}}}}\n"
KEY = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def cfg(*endpoints: str, top: str = "", name: str = "acme") -> str:
    """A config with ``endpoints`` (flow mappings) and extra top-level YAML ``top``."""
    body = f"name: {name}\n"
    if endpoints:
        body += "endpoints:\n" + "".join(f"  - {e}\n" for e in endpoints)
    return body + top


def ep(**fields: str) -> str:
    """The serverless endpoint with ``fields`` replaced or added (values are YAML)."""
    base = {"name": "churn", "type": "serverless", "model": "{source: s3, s3_uri: 's3://acme-ml/m.tar.gz'}"}
    base |= {"serving": "sklearn"}
    base |= fields
    return "{" + ", ".join(f"{k}: {v}" for k, v in base.items()) + "}"


def profiles(*entries: str, top: str = "") -> str:
    """A Bedrock-only config with profile flow mappings ``entries``."""
    return "name: acme\nbedrock:\n  profiles:\n" + "".join(f"    - {e}\n" for e in entries) + top


def profile(name: str = "team-a", **fields: str) -> str:
    """One profile flow mapping."""
    extra = "".join(f", {k}: {v}" for k, v in fields.items())
    return f"{{name: {name!r}, model: {HAIKU}{extra}}}"


def router(name: str = "helpdesk", **fields: str) -> str:
    """One prompt router flow mapping (Nova Lite and Pro, falling back to Pro)."""
    extra = "".join(f", {k}: {v}" for k, v in fields.items())
    return (
        f"{{name: {name!r}, models: [amazon.nova-lite-v1:0, amazon.nova-pro-v1:0], "
        f"fallback_model: amazon.nova-pro-v1:0, response_quality_difference: 10{extra}}}"
    )


def routers(*entries: str, top: str = "") -> str:
    """A config with prompt routers ``entries`` (and profiles in ``top``)."""
    return "name: acme\nbedrock:\n  routers:\n" + "".join(f"    - {e}\n" for e in entries) + top


def tags(n: int, prefix: str = "k") -> str:
    """A flow mapping of ``n`` tags."""
    return "{" + ", ".join(f"{prefix}{i}: v" for i in range(n)) + "}"


BOMB = "name: acme\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi", strict=True)
)

YAML_ENCODING = [
    Case("utf16-bom", "yaml-encoding", "name: acme\n".encode("utf-16"), FILE, "encoding"),
    Case("utf16-be-bom", "yaml-encoding", b"\xfe\xff" + "name: acme\n".encode("utf-16-be"), FILE, "encoding"),
    Case("utf32-bom", "yaml-encoding", "name: acme\n".encode("utf-32"), FILE, "encoding"),
    Case("utf16-no-bom", "yaml-encoding", "name: acme\n".encode("utf-16-le"), FILE, "encoding"),
    Case("latin1", "yaml-encoding", "name: acme\ntags: {team: café}\n".encode("latin-1"), FILE, "encoding"),
    Case("cp1252-quote", "yaml-encoding", b"name: acme\ntags: {team: \x93a\x94}\n", FILE, "encoding"),
    Case("elf-binary", "yaml-encoding", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), FILE, "encoding"),
    Case("png-binary", "yaml-encoding", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", FILE, "encoding"),
    Case("truncated-utf8", "yaml-encoding", b"name: acme\ntags: {team: \xc3}\n", FILE, "encoding"),
    Case("control-char", "yaml-encoding", "name: acme\x01\n", FILE, "yaml"),
    Case("unclosed-flow", "yaml-encoding", "name: acme\nendpoints: [\n", FILE, "yaml"),
    Case("tab-indent", "yaml-encoding", "name: acme\ntags:\n\tteam: a\n", FILE, "yaml"),
    Case("bad-indent", "yaml-encoding", "name: acme\n tags: {}\n  x: 1\n", FILE, "yaml"),
    Case("duplicate-key", "yaml-encoding", "name: acme\nname: other\n", "line 2: name", "duplicate_key"),
    Case("mapping-key", "yaml-encoding", "? {a: 1}\n: x\nname: acme\n", None, "complex_key"),
    Case("list-key", "yaml-encoding", "name: acme\ntags:\n  ? [a, b]\n  : x\n", None, "complex_key"),
    Case("bad-date", "yaml-encoding", "name: 2020-13-45\n", FILE, "yaml"),
    Case(
        "bad-float-tag", "yaml-encoding", "name: acme\nobservability: {anomaly_std_devs: !!float abc}\n", FILE, "yaml"
    ),
    Case("python-tag", "yaml-encoding", "name: !!python/object:os.system acme\n", FILE, "yaml"),
    Case("merge-key", "yaml-encoding", "name: acme\nb: &b {team: a}\ntags: {<<: *b}\n", FILE, "yaml"),
    Case("two-documents", "yaml-encoding", "name: acme\n---\nname: other\n", FILE, "yaml"),
    Case("list-document", "yaml-encoding", "- name: acme\n", FILE, "not_mapping"),
    Case("scalar-document", "yaml-encoding", "acme\n", FILE, "not_mapping"),
    Case("empty-file", "yaml-encoding", "", "name", "missing"),
    Case("utf8-bom", "yaml-encoding", b"\xef\xbb\xbfname: acme\n"),
    Case("crlf-lines", "yaml-encoding", b"name: acme\r\ntags: {team: a}\r\n"),
    Case("yes-is-a-bool-key", "yaml-encoding", "name: acme\ntags: {on: call}\n", "tags.1", "type"),
]

TYPES_RANGES = [
    Case(
        "capacity-negative",
        "types-ranges",
        cfg(ep(type="realtime", capacity="{max: -3}")),
        "endpoints[0].capacity.max",
        "range",
    ),
    Case(
        "capacity-word",
        "types-ranges",
        cfg(ep(type="realtime", capacity="{min: many}")),
        "endpoints[0].capacity.min",
        "type",
    ),
    Case(
        "capacity-float",
        "types-ranges",
        cfg(ep(type="realtime", capacity="{max: 2.5}")),
        "endpoints[0].capacity.max",
        "type",
    ),
    Case(
        "memory-step",
        "types-ranges",
        cfg(ep(serverless="{memory_mb: 3000}")),
        "endpoints[0].serverless.memory_mb",
        "range",
    ),
    Case(
        "memory-high",
        "types-ranges",
        cfg(ep(serverless="{memory_mb: 7168}")),
        "endpoints[0].serverless.memory_mb",
        "range",
    ),
    Case(
        "concurrency-high",
        "types-ranges",
        cfg(ep(serverless="{max_concurrency: 500}")),
        "endpoints[0].serverless.max_concurrency",
        "range",
    ),
    Case("type-enum", "types-ranges", cfg(ep(type="realtme")), "endpoints[0].type", "choice"),
    Case("serving-enum", "types-ranges", cfg(ep(serving="torchserve")), "endpoints[0].serving", "choice"),
    Case(
        "dtype-enum",
        "types-ranges",
        cfg(ep(model="{source: s3, s3_uri: 's3://acme-ml/m.tar.gz', dtype: fp64}")),
        "endpoints[0].model.dtype",
        "choice",
    ),
    Case(
        "std-devs-zero",
        "types-ranges",
        cfg(top="observability: {anomaly_std_devs: 0}\n"),
        "observability.anomaly_std_devs",
        "range",
    ),
    Case(
        "std-devs-inf",
        "types-ranges",
        cfg(top="observability: {anomaly_std_devs: .inf}\n"),
        "observability.anomaly_std_devs",
        "range",
    ),
    Case(
        "std-devs-nan",
        "types-ranges",
        cfg(top="observability: {anomaly_std_devs: .nan}\n"),
        "observability.anomaly_std_devs",
        "range",
    ),
    Case(
        "term-years",
        "types-ranges",
        cfg(top="cost: {savings_plan: {term_years: 2}}\n"),
        "cost.savings_plan.term_years",
        "choice",
    ),
    Case(
        "xray-rate",
        "types-ranges",
        cfg(top="observability: {xray_sampling: {service_name: api, fixed_rate: 2}}\n"),
        "observability.xray_sampling.fixed_rate",
        "range",
    ),
    Case(
        "sampling-percent",
        "types-ranges",
        cfg(ep(data_capture="{s3_uri: 's3://acme-ml/c/', sampling_percent: 101}")),
        "endpoints[0].data_capture.sampling_percent",
        "range",
    ),
    Case("unknown-key", "types-ranges", cfg(ep(servng="lmi")), "endpoints[0].servng", "unknown_key"),
    Case("unknown-top-key", "types-ranges", cfg(top="endpoint: []\n"), "endpoint", "unknown_key"),
    Case("endpoints-mapping", "types-ranges", cfg(top="endpoints: {name: a}\n"), "endpoints", "type"),
    Case("tags-list", "types-ranges", cfg(top="tags: [team]\n"), "tags", "not_mapping"),
    Case("name-number", "types-ranges", "name: 12\n", "name", "type"),
    Case(
        "email-bad",
        "types-ranges",
        cfg(top="observability: {alarm_email: oncall}\n"),
        "observability.alarm_email",
        "pattern",
    ),
    Case(
        "cron-bad",
        "types-ranges",
        cfg(ep(type="realtime", capacity="{min: 1, max: 2}", scaling="{schedule: [{cron: 'at 7', min: 2}]}")),
        "endpoints[0].scaling.schedule[0].cron",
        "pattern",
    ),
    Case("defaults-only", "types-ranges", cfg(SERVERLESS)),
    Case("bounds-inclusive", "types-ranges", cfg(ep(serverless="{memory_mb: 6144, max_concurrency: 200}"))),
]

NAMES = [
    Case("endpoint-trailing-hyphen", "names", cfg(ep(name="chat-")), "endpoints[0].name", "name"),
    Case("endpoint-uppercase", "names", cfg(ep(name="Chat")), "endpoints[0].name", "pattern"),
    Case("endpoint-underscore", "names", cfg(ep(name="chat_v2")), "endpoints[0].name", "pattern"),
    Case("endpoint-41-chars", "names", cfg(ep(name="a" * 41)), "endpoints[0].name", "pattern"),
    Case("endpoint-digit-start", "names", cfg(ep(name="2chat")), "endpoints[0].name", "pattern"),
    Case("endpoint-unicode", "names", cfg(ep(name="chät")), "endpoints[0].name", "pattern"),
    Case("platform-uppercase", "names", cfg(SERVERLESS, name="Acme"), "name", "pattern"),
    Case("platform-21-chars", "names", cfg(SERVERLESS, name="a" * 21), "name", "pattern"),
    Case("platform-one-char", "names", cfg(SERVERLESS, name="a"), "name", "pattern"),
    Case("profile-56-chars", "names", profiles(profile("a" * 56)), "bedrock.profiles[0].name", "invalid"),
    Case("profile-double-space", "names", profiles(profile("team  a")), "bedrock.profiles[0].name", "pattern"),
    Case("profile-leading-space", "names", profiles(profile(" team")), "bedrock.profiles[0].name", "pattern"),
    Case("profile-unicode", "names", profiles(profile("téam")), "bedrock.profiles[0].name", "pattern"),
    Case("longest-names", "names", cfg(ep(name="a" * 40), name="b" * 20)),
    Case("platform-trailing-hyphen", "names", cfg(SERVERLESS, name="acme-")),
    Case("endpoint-double-hyphen", "names", cfg(ep(name="a--b"))),
    Case("profile-55-chars", "names", profiles(profile("a" * 55))),
    Case("profile-spaces", "names", profiles(profile("Team A Sonnet"))),
    Case("profile-trailing-space", "names", profiles(profile("team ")), "bedrock.profiles[0].name", "invalid"),
]

TAGS = [
    Case("keys-differ-by-case", "tags", cfg(SERVERLESS, top="tags: {Team: a, team: b}\n"), "tags.team", "tag_case"),
    Case("keys-differ-by-case-upper", "tags", cfg(top="tags: {COST: a, cost: b}\n"), "tags.cost", "tag_case"),
    Case("fifty-platform-tags", "tags", cfg(SERVERLESS, top=f"tags: {tags(50)}\n"), "tags", "tag_count"),
    Case("forty-six-with-capacity", "tags", cfg(CPU_RT, top=f"tags: {tags(46)}\n"), "tags", "tag_count"),
    Case("unicode-value", "tags", cfg(SERVERLESS, top="tags: {team: é}\n"), "tags.team", "tag_chars"),
    Case("unicode-key", "tags", cfg(top="tags: {équipe: a}\n"), "tags.équipe", "tag_chars"),
    Case("tab-in-value", "tags", cfg(top='tags: {team: "a\\tb"}\n'), "tags.team", "tag_chars"),
    Case("newline-in-key", "tags", cfg(top='tags: {"a\\nb": x}\n'), "tags.a\nb", "tag_chars"),
    Case("aws-prefix", "tags", cfg(top="tags: {'aws:owner': me}\n"), "tags.aws:owner", "tag_reserved"),
    Case("aws-prefix-upper", "tags", cfg(top="tags: {'AWS:owner': me}\n"), "tags.AWS:owner", "tag_reserved"),
    Case(
        "library-prefix",
        "tags",
        cfg(SERVERLESS, top="tags: {'inference:platform': other}\n"),
        "tags.inference:platform",
        "tag_reserved",
    ),
    Case(
        "library-prefix-capacity",
        "tags",
        cfg(top="tags: {'Inference:capacity': x}\n"),
        "tags.Inference:capacity",
        "tag_reserved",
    ),
    Case(
        "profile-library-prefix",
        "tags",
        profiles(profile(tags="{'inference:platform': x}")),
        "bedrock.profiles[0].tags.inference:platform",
        "tag_reserved",
    ),
    Case(
        "profile-unicode-value",
        "tags",
        profiles(profile(tags="{team: équipe}")),
        "bedrock.profiles[0].tags.team",
        "tag_chars",
    ),
    Case(
        "profile-hash-value",
        "tags",
        profiles(profile(tags="{team: 'a#b'}")),
        "bedrock.profiles[0].tags.team",
        "pattern",
    ),
    Case("value-257", "tags", cfg(top=f"tags: {{team: {'v' * 257}}}\n"), "tags.team", "length"),
    Case("key-129", "tags", cfg(top=f"tags: {{{'k' * 129}: v}}\n"), "tags." + "k" * 57 + "...", "length"),
    Case("forty-nine-serverless", "tags", cfg(SERVERLESS, top=f"tags: {tags(49)}\n")),
    Case("forty-five-with-capacity", "tags", cfg(CPU_RT, top=f"tags: {tags(45)}\n")),
    Case("profile-own-tag-wins", "tags", profiles(profile(tags="{team: team-a}"), top="tags: {team: ml-platform}\n")),
    Case("same-key-different-values", "tags", profiles(profile(tags="{Team: x}"), top="tags: {team: y}\n")),
    Case(
        "router-library-prefix",
        "tags",
        routers(router(tags="{'inference:x': y}")),
        "bedrock.routers[0].tags.inference:x",
        "tag_reserved",
    ),
    Case("router-own-tag-wins", "tags", routers(router(tags="{team: helpdesk}"), top="tags: {team: ml-platform}\n")),
    Case("all-allowed-characters", "tags", cfg(SERVERLESS, top="tags: {'a b_.:/=+-@': 'x y_.:/=+-@'}\n")),
]

ARNS = [
    Case(
        "kms-other-region",
        "arns",
        cfg(ep(kms_key_arn=KEY.replace("us-east-1", "eu-west-1")), top="region: us-east-1\n"),
        "endpoints[0].kms_key_arn",
        "arn_region",
    ),
    Case("kms-region-agnostic", "arns", cfg(ep(kms_key_arn=KEY)), "endpoints[0].kms_key_arn", "arn_region"),
    Case(
        "kms-partition",
        "arns",
        cfg(
            ep(kms_key_arn=KEY.replace("aws:", "aws-cn:")),
            top="region: us-east-1\n",
        ),
        "endpoints[0].kms_key_arn",
        "arn_region",
    ),
    Case("kms-format", "arns", cfg(ep(kms_key_arn="alias/my-key")), "endpoints[0].kms_key_arn", "pattern"),
    Case(
        "kms-unicode-key-id",
        "arns",
        cfg(ep(kms_key_arn=KEY.replace("1234abcd", "ключ")), top="region: us-east-1\n"),
        "endpoints[0].kms_key_arn",
        "pattern",
    ),
    Case(
        "kms-unicode-account",
        "arns",
        cfg(ep(kms_key_arn=KEY.replace("111122223333", "١١١١٢٢٢٢٣٣٣٣")), top="region: us-east-1\n"),
        "endpoints[0].kms_key_arn",
        "pattern",
    ),
    Case("account-unicode-digits", "arns", cfg(top="account: '١٢٣٤٥٦٧٨٩٠١٢'\n"), "account", "pattern"),
    Case("account-11-digits", "arns", cfg(top="account: '12345678901'\n"), "account", "pattern"),
    Case("account-as-number", "arns", cfg(top="account: 111122223333\n"), "account", "type"),
    Case("region-unicode-digit", "arns", cfg(top="region: us-east-١\n"), "region", "pattern"),
    Case(
        "invoke-role-other-account",
        "arns",
        profiles(profile(invoke_role_arns=f"[{OTHER_ROLE}]"), top="account: '111122223333'\n"),
        "bedrock.profiles[0].invoke_role_arns[0]",
        "arn_account",
    ),
    Case(
        "roles-in-two-accounts",
        "arns",
        profiles(profile(invoke_role_arns=f"[{ROLE}, {OTHER_ROLE}]")),
        "bedrock.profiles[0].invoke_role_arns[1]",
        "arn_account",
    ),
    Case(
        "deny-role-other-account",
        "arns",
        cfg(top="account: '111122223333'\n" + BUDGET.format(OTHER_ROLE)),
        "cost.budget.deny_role_arns[0]",
        "arn_account",
    ),
    Case(
        "role-is-a-user",
        "arns",
        profiles(profile(invoke_role_arns="['arn:aws:iam::111122223333:user/bob']")),
        "bedrock.profiles[0].invoke_role_arns[0]",
        "pattern",
    ),
    Case(
        "role-partition",
        "arns",
        profiles(profile(invoke_role_arns="['arn:aws-cn:iam::111122223333:role/app']"), top="region: us-east-1\n"),
        "bedrock.profiles[0].invoke_role_arns[0]",
        "arn_region",
    ),
    Case(
        "kms-same-region",
        "arns",
        cfg(
            ep(
                type="realtime",
                serving="sklearn",
                kms_key_arn=KEY,
                model="{source: s3, s3_uri: 's3://acme-ml/m.tar.gz'}",
                capacity="{min: 1, max: 1}",
            ),
            top="region: us-east-1\naccount: '111122223333'\n",
        ),
    ),
    Case(
        "roles-same-account",
        "arns",
        profiles(profile(invoke_role_arns=f"[{ROLE}, 'arn:aws:iam::111122223333:role/other']")),
    ),
    Case(
        "role-path",
        "arns",
        profiles(
            profile(invoke_role_arns="['arn:aws:iam::111122223333:role/team/app']"), top="account: '111122223333'\n"
        ),
    ),
]

IDS_DUPLICATES = [
    Case("endpoint-names-twice", "ids-duplicates", cfg(SERVERLESS, SERVERLESS), "endpoints[1].name", "duplicate"),
    Case(
        "profile-names-twice", "ids-duplicates", profiles(profile(), profile()), "bedrock.profiles[1].name", "duplicate"
    ),
    Case(
        "same-role-twice",
        "ids-duplicates",
        profiles(profile(invoke_role_arns=f"[{ROLE}, {ROLE}]")),
        "bedrock.profiles[0].invoke_role_arns[1]",
        "duplicate",
    ),
    Case(
        "same-account-twice",
        "ids-duplicates",
        cfg(top="observability: {source_account_ids: ['111122223333', '111122223333']}\n"),
        "observability.source_account_ids[1]",
        "duplicate",
    ),
    Case(
        "same-deny-role-twice",
        "ids-duplicates",
        cfg(
            top=f"cost: {{budget: {{monthly_limit_usd: 10, notify_email: a@b.co, deny_role_arns: [{ROLE}, {ROLE}]}}}}\n"
        ),
        "cost.budget.deny_role_arns[1]",
        "duplicate",
    ),
    Case(
        "same-activation-twice",
        "ids-duplicates",
        cfg(top="tags: {team: a}\ncost: {activate_cost_allocation_tags: [team, team]}\n"),
        "cost.activate_cost_allocation_tags[1]",
        "duplicate",
    ),
    Case(
        "same-subnet-twice",
        "ids-duplicates",
        cfg(
            ep(
                type="realtime",
                capacity="{min: 1, max: 1}",
                vpc=f"{{subnet_ids: [{SUBNET}, {SUBNET}], security_group_ids: [{SG}]}}",
            )
        ),
        "endpoints[0].vpc.subnet_ids[1]",
        "duplicate",
    ),
    Case(
        "same-cron-twice",
        "ids-duplicates",
        cfg(
            ep(
                type="realtime",
                capacity="{min: 1, max: 3}",
                scaling=f"{{schedule: [{{cron: '{CRON}', min: 2}}, {{cron: '{CRON}', min: 3}}]}}",
            )
        ),
        "endpoints[0].scaling.schedule[1]",
        "duplicate",
    ),
    Case(
        "same-security-group-twice",
        "ids-duplicates",
        cfg(
            ep(
                type="realtime",
                capacity="{min: 1, max: 1}",
                vpc=f"{{subnet_ids: [{SUBNET}], security_group_ids: [{SG}, {SG}]}}",
            )
        ),
        "endpoints[0].vpc.security_group_ids[1]",
        "duplicate",
    ),
    Case(
        "router-same-role-twice",
        "ids-duplicates",
        routers(router(invoke_role_arns=f"[{ROLE}, {ROLE}]")),
        "bedrock.routers[0].invoke_role_arns[1]",
        "duplicate",
    ),
    Case(
        "router-and-profile-one-id",
        "ids-duplicates",
        routers(router("x"), top=f"  profiles: [{profile('Routerx')}]\n"),
        "bedrock.routers[0].name",
        "id_collision",
    ),
    Case("hyphen-runs", "ids-duplicates", cfg(ep(name="a-b"), ep(name="a--b"))),
    Case("digit-after-hyphen", "ids-duplicates", cfg(ep(name="a-1b"), ep(name="a1b"))),
    Case("trailing-hyphen-platform", "ids-duplicates", cfg(ep(name="x-a"), ep(name="x--a"), name="ab-")),
    Case("profile-space-vs-hyphen", "ids-duplicates", profiles(profile("team a"), profile("team-a"))),
    Case("profile-case", "ids-duplicates", profiles(profile("Team-A"), profile("team-a"))),
    Case("profile-underscore", "ids-duplicates", profiles(profile("team_a"), profile("team-a"), profile("teamA"))),
    Case(
        "endpoint-and-profile-same-name",
        "ids-duplicates",
        cfg(ep(name="team-a"), top=f"bedrock: {{profiles: [{profile('acme-team-a')}]}}\n"),
    ),
]

CROSS_FIELD = [
    Case(
        "min-above-max",
        "cross-field",
        cfg(ep(type="realtime", capacity="{min: 3, max: 2}")),
        "endpoints[0].capacity.min",
        "conflict",
    ),
    Case(
        "serverless-block-on-realtime",
        "cross-field",
        cfg(ep(type="realtime", serverless="{memory_mb: 2048}")),
        "endpoints[0].serverless",
        "conflict",
    ),
    Case(
        "multi-model-without-block",
        "cross-field",
        cfg(ep(type="multi-model", serving="xgboost", model="{source: s3}")),
        "endpoints[0].multi_model",
        "conflict",
    ),
    Case("custom-without-image", "cross-field", cfg(ep(serving="custom")), "endpoints[0].image", "conflict"),
    Case(
        "s3-uri-with-huggingface",
        "cross-field",
        cfg(ep(model="{id: org/m, s3_uri: 's3://acme-ml/m.tar.gz'}")),
        "endpoints[0].model.s3_uri",
        "conflict",
    ),
    Case(
        "vpc-half",
        "cross-field",
        cfg(ep(type="realtime", vpc="{subnet_ids: [subnet-0123456789abcdef0]}")),
        "endpoints[0].vpc.security_group_ids",
        "conflict",
    ),
    Case(
        "provisioned-above-max",
        "cross-field",
        cfg(ep(serverless="{max_concurrency: 5, provisioned_concurrency: 6}")),
        "endpoints[0].serverless.provisioned_concurrency",
        "conflict",
    ),
    Case(
        "floor-above-max",
        "cross-field",
        cfg(
            ep(
                type="realtime",
                capacity="{min: 1, max: 2}",
                scaling="{schedule: [{cron: 'cron(0 7 ? * MON-FRI *)', min: 3}]}",
            )
        ),
        "endpoints[0].scaling.schedule[0].min",
        "conflict",
    ),
    Case(
        "sampling-without-uri",
        "cross-field",
        cfg(ep(data_capture="{sampling_percent: 10}")),
        "endpoints[0].data_capture.s3_uri",
        "conflict",
    ),
    Case(
        "deny-roles-without-email",
        "cross-field",
        cfg(top=f"cost: {{budget: {{monthly_limit_usd: 10, deny_role_arns: [{ROLE}]}}}}\n"),
        "cost.budget.notify_email",
        "conflict",
    ),
    Case(
        "email-without-limit",
        "cross-field",
        cfg(top="cost: {budget: {notify_email: a@b.co}}\n"),
        "cost.budget.notify_email",
        "conflict",
    ),
    Case(
        "accounts-without-dashboard",
        "cross-field",
        cfg(top="observability: {dashboard: false, source_account_ids: ['111122223333']}\n"),
        "observability.source_account_ids",
        "conflict",
    ),
    Case(
        "capacity-on-serverless",
        "cross-field",
        cfg(ep(capacity="{min: 1, max: 2}")),
        "endpoints[0].capacity",
        "conflict",
    ),
    Case(
        "s3-source-without-uri", "cross-field", cfg(ep(model="{source: s3}")), "endpoints[0].model.s3_uri", "conflict"
    ),
    Case(
        "lmi-on-serverless",
        "cross-field",
        cfg(ep(serving="lmi", model="{id: org/m, parameters_billion: 1}")),
        "endpoints[0].serving",
        "invalid",
    ),
    Case(
        "bucket-ip",
        "cross-field",
        cfg(ep(model="{source: s3, s3_uri: 's3://192.168.1.1/m.tar.gz'}")),
        "endpoints[0].model.s3_uri",
        "s3_bucket",
    ),
    Case(
        "bucket-double-dot",
        "cross-field",
        cfg(ep(model="{source: s3, s3_uri: 's3://acme..ml/m.tar.gz'}")),
        "endpoints[0].model.s3_uri",
        "s3_bucket",
    ),
    Case(
        "bucket-xn",
        "cross-field",
        cfg(ep(model="{source: s3, s3_uri: 's3://xn--acme/m.tar.gz'}")),
        "endpoints[0].model.s3_uri",
        "s3_bucket",
    ),
    Case(
        "bucket-alias-suffix",
        "cross-field",
        cfg(
            ep(
                type="multi-model",
                serving="xgboost",
                model="{source: s3}",
                multi_model="{model_data_prefix: 's3://acme-s3alias/p/'}",
            )
        ),
        "endpoints[0].multi_model.model_data_prefix",
        "s3_bucket",
    ),
    Case(
        "logging-bucket-ip",
        "cross-field",
        "name: acme\nbedrock: {invocation_logging: {s3: '10.0.0.1'}}\n",
        "bedrock.invocation_logging.s3",
        "invalid",
    ),
    Case(
        "bucket-uppercase",
        "cross-field",
        cfg(ep(model="{source: s3, s3_uri: 's3://Acme/m.tar.gz'}")),
        "endpoints[0].model.s3_uri",
        "pattern",
    ),
    Case(
        "activated-key-not-tagged",
        "cross-field",
        cfg(top="tags: {team: a}\ncost: {activate_cost_allocation_tags: [team, owner]}\n"),
        "cost.activate_cost_allocation_tags[1]",
        "conflict",
    ),
    Case(
        "activated-library-keys",
        "cross-field",
        cfg(
            CPU_RT,
            top="tags: {team: a}\n"
            "cost: {activate_cost_allocation_tags: [team, 'inference:platform', 'inference:capacity']}\n",
        ),
    ),
    Case(
        "budget-with-everything",
        "cross-field",
        cfg(top="account: '111122223333'\n" + BUDGET.format(ROLE)),
    ),
    Case("bucket-with-dots", "cross-field", cfg(ep(model="{source: s3, s3_uri: 's3://acme.ml.models/m.tar.gz'}"))),
]


def _endpoints(n: int) -> str:
    return "".join(
        f"  - {{name: e{i}, type: serverless, model: {{source: s3, s3_uri: '{MODEL}'}}, serving: sklearn}}\n"
        for i in range(n)
    )


SIZE_EXPANSION = [
    Case("billion-laughs", "size-expansion", BOMB, None, "alias"),
    Case("recursive-alias-map", "size-expansion", "name: acme\ntags: &t {a: *t}\n", None, "alias"),
    Case("recursive-alias-list", "size-expansion", "name: acme\nx: &t [*t]\n", None, "alias"),
    Case("deep-33", "size-expansion", "name: acme\nx: " + "[" * 33 + "]" * 33 + "\n", None, "too_deep"),
    Case(
        "deep-block",
        "size-expansion",
        "name: acme\n" + "".join(f"{'  ' * i}k{i}:\n" for i in range(40)),
        None,
        "too_deep",
    ),
    Case("deeper-than-libyaml", "size-expansion", "name: acme\nx: " + "[" * 5000 + "]" * 5000 + "\n", FILE, "yaml"),
    Case("file-over-cap", "size-expansion", "name: acme\n#" + "x" * 1_000_001 + "\n", FILE, "too_large"),
    Case("long-string", "size-expansion", "name: " + "a" * 900_000 + "\n", "name", "pattern"),
    Case(
        "endpoints-over-cap", "size-expansion", "name: acme\nendpoints:\n" + _endpoints(1001), "endpoints", "too_large"
    ),
    Case(
        "schedule-over-cap",
        "size-expansion",
        cfg(
            ep(
                type="realtime",
                capacity="{min: 1, max: 3}",
                scaling="{schedule: ["
                + ", ".join(f"{{cron: 'cron({i} 7 ? * MON-FRI *)', min: 2}}" for i in range(51))
                + "]}",
            )
        ),
        "endpoints[0].scaling.schedule",
        "too_large",
    ),
    Case(
        "profiles-over-cap",
        "size-expansion",
        profiles(*(profile(f"p{i}") for i in range(101))),
        "bedrock.profiles",
        "too_large",
    ),
    Case(
        "accounts-over-search-limit",
        "size-expansion",
        cfg(
            top="observability: {source_account_ids: [" + ", ".join(f"'{100000000000 + i}'" for i in range(49)) + "]}\n"
        ),
        "observability.source_account_ids",
        "too_large",
    ),
    Case(
        "accounts-at-search-limit",
        "size-expansion",
        cfg(
            top="observability: {source_account_ids: [" + ", ".join(f"'{100000000000 + i}'" for i in range(48)) + "]}\n"
        ),
    ),
    Case(
        "aliases-small-expansion",
        "size-expansion",
        "name: acme\nendpoints:\n"
        "  - {name: e0, type: serverless, model: &m {source: s3, s3_uri: 's3://acme-ml/m.tar.gz'}, serving: sklearn}\n"
        "  - {name: e1, type: serverless, model: *m, serving: sklearn}\n",
    ),
    Case("ten-endpoints", "size-expansion", "name: acme\nendpoints:\n" + _endpoints(10)),
    Case("big-comment", "size-expansion", "name: acme\n#" + "x" * 900_000 + "\n"),
]

CASES: list[Case] = [
    *YAML_ENCODING,
    *TYPES_RANGES,
    *NAMES,
    *TAGS,
    *ARNS,
    *IDS_DUPLICATES,
    *CROSS_FIELD,
    *SIZE_EXPANSION,
]
