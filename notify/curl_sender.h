// make_curl_sender(): the real channels over libcurl.
//
//   mailto:  SMTP to [notify] smtp_url (STARTTLS per smtp_tls; AUTH with smtp_secrets_file)
//   sms:     POST {twilio_base_url}/2010-04-01/Accounts/{twilio_account_sid}/Messages.json,
//            form To/From/Body, basic auth (user = the SID unless the secrets file names one,
//            password = the auth token from twilio_secrets_file)
//   http(s): POST the JSON payload to the URL; from a site daemon, to public addresses only
//            unless the site chose it ([notify] default_targets, webhook_hosts)
//   pagerduty:NAME  POST the event (pagerduty_event.h) with the routing key NAME of
//            pagerduty_secrets_file added to pagerduty_url; 202 is success, 400 (an event
//            PagerDuty finds invalid) permanent, 429 and 5xx retried. A site daemon sends only
//            the site's own pagerduty targets (default_targets): the key pages its operators,
//            and a registration naming one is failed for good. The key never appears in a
//            SendError: an answer that repeats it shows "***" instead.
//
// Each send() is one request with the configured timeout. A channel that is not configured,
// a secrets file that is missing or too open, a server that is down: transient SendErrors
// naming what to fix. The sender reads the settings it was made with; the daemon makes a new
// one when the config is reloaded.
#pragma once

#include <memory>
#include <string>

#include "common/clock.h"
#include "notify/sender.h"
#include "notify/settings.h"

namespace notify {

// This host's name as messages name it (the Message-ID's domain, the test message's sender);
// "localhost" when gethostname fails.
[[nodiscard]] std::string local_host_name();

// `site_daemon`: the daemon runs as root for every user, so a registration's webhooks go to
// public addresses only unless [notify] webhook_addresses says otherwise (settings.h); a
// per-user daemon or `doctor --send-test` (whose targets are its user's own) passes false.
[[nodiscard]] std::unique_ptr<Sender> make_curl_sender(Settings settings,
                                                       const common::Clock& clock,
                                                       bool site_daemon = false);

}  // namespace notify
