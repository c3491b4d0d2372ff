#!/usr/bin/python3
"""A local HTTP receiver standing in for Twilio and for a webhook: writes each POST to
DIR/<n>.json ({"path", "authorization", "content_type", "body"}) and answers like Twilio
(201 and a message resource) for .../Messages.json, 200 "ok" otherwise; a path containing
"/reject" gets 400 with a Twilio-style error, one containing "/revoked" 401 (a webhook whose
token was revoked). Creates DIR/ready when listening.

usage: http_receiver.py PORT DIR
"""
import http.server
import json
import os
import sys
import threading


def make_handler(directory, counter):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8")
            if "/reject" in self.path:
                self.reply(400, "application/json",
                           '{"code": 21211, "message": "The \'To\' number is not valid."}')
                return
            if "/revoked" in self.path:
                self.reply(401, "text/plain", "invalid_token")
                return
            with counter["lock"]:
                counter["n"] += 1
                n = counter["n"]
            path = os.path.join(directory, "%d.json" % n)
            with open(path + ".tmp", "w") as out:
                json.dump({"path": self.path,
                           "authorization": self.headers.get("Authorization", ""),
                           "content_type": self.headers.get("Content-Type", ""),
                           "idempotency_key": self.headers.get("Idempotency-Key", ""),
                           "body": body}, out)
            os.rename(path + ".tmp", path)
            if self.path.endswith("/Messages.json"):
                self.reply(201, "application/json", '{"sid": "SM%032d", "status": "queued"}' % n)
            else:
                self.reply(200, "text/plain", "ok")

        def reply(self, code, content_type, text):
            data = text.encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    counter = {"n": 0, "lock": threading.Lock()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(directory, counter))
    open(os.path.join(directory, "ready"), "w").close()
    server.serve_forever()


if __name__ == "__main__":
    main()
