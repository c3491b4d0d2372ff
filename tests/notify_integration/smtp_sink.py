#!/usr/bin/python3
"""A real SMTP server on loopback for the notification tests (aiosmtpd, Debian's
python3-aiosmtpd): writes each accepted message to DIR/<n>.eml (envelope in X-Envelope-*
headers first), rejects RCPT for addresses starting with "nobody" with 550, and with --user and
--password requires AUTH (allowed without TLS: loopback only). Creates DIR/ready when listening.

usage: smtp_sink.py PORT DIR [--user U --password P]
"""
import argparse
import os
import signal
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("nobody"):
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        path = os.path.join(self.directory, "%d.eml" % self.count)
        with open(path + ".tmp", "wb") as out:
            out.write(("X-Envelope-From: %s\r\n" % envelope.mail_from).encode())
            out.write(("X-Envelope-To: %s\r\n" % ",".join(envelope.rcpt_tos)).encode())
            out.write(envelope.original_content)
        os.rename(path + ".tmp", path)
        return "250 Message accepted for delivery"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("directory")
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()

    options = {}
    if args.user:
        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login.decode() == args.user and \
                auth_data.password.decode() == args.password
            return AuthResult(success=ok)
        options = dict(authenticator=authenticate, auth_required=True, auth_require_tls=False)
    controller = Controller(Sink(args.directory), hostname="127.0.0.1", port=args.port,
                            server_kwargs=options)
    controller.start()
    open(os.path.join(args.directory, "ready"), "w").close()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
