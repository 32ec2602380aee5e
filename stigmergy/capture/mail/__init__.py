"""Mail: one message (.eml, RFC 5322, read with the standard library's `email` package under
`email.policy.default`) and an mbox (one capture per message, split by the standard library's
`mailbox`)."""
