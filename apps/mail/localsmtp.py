"""The local SMTP submission server of `make run`, `make up` and the tests (bootstrap.py starts it
beside Dovecot): SMTP on 127.0.0.1 with AUTH (the local server's one password), each accepted
message delivered by LMTP into the Dovecot mailbox of every recipient. Every address has a
mailbox there, so mail "to the outside world" stays on this machine and can be read back.

Run by the virtualenv's Python without Django: `python -m apps.mail.localsmtp --port P
--lmtp-port L --password-file F`. It logs counts and SMTP codes, never an address or a body.
"""

import argparse
import asyncio
import hmac
import logging
import signal
import smtplib
import sys
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

logger = logging.getLogger("atrium.localsmtp")

# What the server accepts in one message (the mail app refuses larger ones first: 25 MB).
MAX_BYTES = 32 * 1024 * 1024


class Authenticator:
    def __init__(self, password: str) -> None:
        self.password = password.encode()

    def __call__(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        good = hmac.compare_digest(bytes(data.password), self.password)
        return AuthResult(success=good, handled=False)


class Deliver:
    """Hands each message to Dovecot's LMTP; a recipient LMTP refuses is refused here too."""

    def __init__(self, lmtp_port: int) -> None:
        self.lmtp_port = lmtp_port

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not session.authenticated:
            return "530 5.7.0 Authentication required"
        return await asyncio.get_running_loop().run_in_executor(None, self.deliver, envelope)

    def deliver(self, envelope: Any) -> str:
        # One recipient per LMTP transaction: LMTP answers DATA once per recipient, which
        # smtplib's LMTP client does not read.
        refused = 0
        try:
            with smtplib.LMTP("127.0.0.1", self.lmtp_port, timeout=30) as lmtp:
                for recipient in envelope.rcpt_tos:
                    try:
                        lmtp.sendmail(envelope.mail_from, [recipient], envelope.original_content)
                    except smtplib.SMTPRecipientsRefused:
                        refused += 1
        except (OSError, smtplib.SMTPException) as error:
            logger.warning("delivery failed: %s", type(error).__name__)
            return "451 4.3.0 Local delivery failed; try again later"
        if refused == len(envelope.rcpt_tos):
            logger.warning("delivery refused for %s recipients", refused)
            return "550 5.1.1 Recipients refused"
        size, delivered = len(envelope.original_content), len(envelope.rcpt_tos) - refused
        logger.info("delivered a message of %s bytes to %s recipients", size, delivered)
        return "250 2.0.0 Delivered"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--lmtp-port", type=int, required=True)
    parser.add_argument("--password-file", type=Path, required=True)
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    # aiosmtpd's own log names peers and, at debug, commands with their addresses.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    controller = Controller(
        Deliver(arguments.lmtp_port),
        hostname="127.0.0.1",
        port=arguments.port,
        server_hostname="localhost",
        data_size_limit=MAX_BYTES,
        auth_require_tls=False,
        authenticator=Authenticator(arguments.password_file.read_text().strip()),
        enable_SMTPUTF8=True,
    )
    controller.start()
    logger.info("listening on 127.0.0.1:%s", arguments.port)
    stopping = asyncio.Event()
    loop = asyncio.new_event_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    loop.run_until_complete(stopping.wait())
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
