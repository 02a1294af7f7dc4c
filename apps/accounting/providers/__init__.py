"""The services outside Atrium that the Accounting area speaks to, one module per provider: the
outside ledger (Xero), the public company register (Companies House), the ECB's exchange rates
and OCR (Tesseract). Each speaks its provider's protocol and answers in the area's errors."""
