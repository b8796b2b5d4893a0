"""Whether the AWS SDK's default credential chain finds credentials, before deploy.sh spends a synth.

``python scripts/check_credentials.py [--profile NAME]``: exit 0 and one line naming where the credentials come
from (environment, shared config profile, SSO, container or instance role), or exit 2 and what to do. It resolves
the chain as the CDK CLI does (botocore's default session); it sends nothing to AWS unless the chain itself must
(an SSO token refresh, a container or instance metadata endpoint).
"""

from __future__ import annotations

import sys

import botocore.exceptions
import botocore.session

HELP = "see docs/deploy.md, section 1 'Credentials' (AWS_PROFILE or --profile NAME, aws sso login, or a role)"


def main(argv: list[str]) -> int:
    """Check the chain for ``--profile NAME`` if given, else for the environment's profile."""
    profile = next((a.removeprefix("--profile=") for a in argv if a.startswith("--profile=")), None)
    if "--profile" in argv[:-1]:
        profile = argv[argv.index("--profile") + 1]
    try:
        session = botocore.session.Session(profile=profile)
        credentials = session.get_credentials()
    except botocore.exceptions.BotoCoreError as error:
        print(f"deploy.sh: the AWS credentials cannot be resolved: {error}; {HELP}", file=sys.stderr)
        return 2
    if credentials is None:
        print(f"deploy.sh: no AWS credentials found (profile {profile or 'default'}); {HELP}", file=sys.stderr)
        return 2
    print(f"deploy.sh: AWS credentials from {credentials.method}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
