"""Bank statement files read into lines: CAMT.053 (ISO 20022, with the standard library's XML
parser, whose expat refuses entity expansion bombs), MT940 (the `mt-940` package), OFX 1.x SGML
and 2.x XML (`ofxtools`) and CSV with a column mapping (the standard library's csv).

`parse(format, content, mapping)` gives a `Statement` or raises StatementUnreadable naming what
did not parse. Each line carries the bank's own id where the format has one (OFX FITID, CAMT.053
AcctSvcrRef or NtryRef, MT940 bank reference); otherwise `external_id` is a fingerprint of the
line (date, amount, text, reference, and its rank among identical lines of the file), so the
same statement imported twice gives the same ids and the second import adds nothing.
"""

import csv
import hashlib
import io
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    NoSuchColumn,
    NotADate,
    NotAnAmount,
    StatementTooLong,
    StatementUnreadable,
    UnknownStatementFormat,
)
from apps.core.errors import invalid

FORMATS = ("camt053", "mt940", "ofx", "csv")
MAX_LINES = 5000


@dataclass
class StatementLine:
    date: date
    amount: Decimal
    description: str = ""
    counterparty: str = ""
    reference: str = ""
    external_id: str = ""


@dataclass
class Statement:
    format: str
    currency: str = ""
    # The account the statement is for, as it names it (an IBAN or a national number).
    account: str = ""
    lines: list[StatementLine] = field(default_factory=list)


@dataclass(frozen=True)
class CsvMapping:
    """Which column holds what (by header name); `amount` signed, or `paid_in` and `paid_out`."""

    date: str
    amount: str = ""
    paid_in: str = ""
    paid_out: str = ""
    description: str = ""
    reference: str = ""
    counterparty: str = ""
    date_format: str = "%Y-%m-%d"
    decimal_comma: bool = False


MAPPING_KEYS = {
    "date": "date",
    "amount": "amount",
    "paidIn": "paid_in",
    "paidOut": "paid_out",
    "description": "description",
    "reference": "reference",
    "counterparty": "counterparty",
    "dateFormat": "date_format",
}


def csv_mapping(given: dict[str, str]) -> CsvMapping:
    """A CSV column mapping from what an agent sent ({"date": "Booking date", ...})."""
    values: dict[str, Any] = {}
    for key, value in given.items():
        if key == "decimalComma":
            values["decimal_comma"] = str(value).strip().lower() in ("yes", "true", "1", "y")
        elif key in MAPPING_KEYS:
            values[MAPPING_KEYS[key]] = str(value).strip()
        else:
            raise invalid(
                "mapping",
                _("{key} is not a mapping key ({keys})"),
                key=key,
                keys=", ".join([*MAPPING_KEYS, "decimalComma"]),
            )
    if not values.get("date"):
        raise invalid("mapping", _('name the date column: {"date": "..."}'))
    return CsvMapping(**values)


def parse(format: str, content: str, mapping: CsvMapping | None = None) -> Statement:
    if format not in FORMATS:
        raise UnknownStatementFormat(format=format, formats=", ".join(FORMATS))
    if not content.strip():
        raise StatementUnreadable(format=format, problem=_("the file is empty"))
    try:
        if format == "camt053":
            statement = _camt053(content)
        elif format == "mt940":
            statement = _mt940(content)
        elif format == "ofx":
            statement = _ofx(content)
        else:
            if mapping is None:
                raise StatementUnreadable(format=format, problem=_("a CSV needs its column mapping"))
            statement = _csv(content, mapping)
    except StatementUnreadable:
        raise
    except Exception as error:  # the parsers' own errors: say what they said, as a tool error
        raise StatementUnreadable(format=format, problem=_short(error)) from None
    if not statement.lines:
        raise StatementUnreadable(format=format, problem=_("it holds no transactions"))
    if len(statement.lines) > MAX_LINES:
        raise StatementTooLong(format=format, most=MAX_LINES)
    _fingerprint(statement)
    return statement


def _short(error: Exception) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:200]


def _fingerprint(statement: Statement) -> None:
    seen: Counter[tuple[Any, ...]] = Counter()
    for line in statement.lines:
        line.description = " ".join(line.description.split())[:500]
        line.counterparty = " ".join(line.counterparty.split())[:200]
        line.reference = line.reference.strip()[:140]
        if line.external_id:
            line.external_id = f"{statement.format}:{line.external_id}"[:200]
            continue
        key = (line.date.isoformat(), str(line.amount), line.description, line.reference)
        seen[key] += 1
        digest = hashlib.sha256("|".join([*key, str(seen[key])]).encode()).hexdigest()[:40]
        line.external_id = f"{statement.format}#{digest}"


# --- CAMT.053 -------------------------------------------------------------------------------------


def _camt053(content: str) -> Statement:
    # The standard parser does not fetch external entities; expat (>= 2.4) refuses entity bombs.
    text = content.encode() if content.lstrip().startswith("<?xml") else content
    root = ET.fromstring(text)  # noqa: S314 (expat 2.4+ limits entity expansion; no external entities)
    if not root.tag.endswith("}Document") or "camt.053" not in root.tag:
        raise StatementUnreadable(format="camt053", problem=_("not a camt.053 Document"))
    ns = {"c": root.tag[1:].split("}")[0]}
    statements = root.findall("c:BkToCstmrStmt/c:Stmt", ns)
    if not statements:
        raise StatementUnreadable(format="camt053", problem=_("no Stmt element"))
    result = Statement("camt053")
    for stmt in statements:
        result.account = (
            result.account
            or _text(stmt, "c:Acct/c:Id/c:IBAN", ns)
            or _text(stmt, "c:Acct/c:Id/c:Othr/c:Id", ns)
        )
        result.currency = result.currency or _text(stmt, "c:Acct/c:Ccy", ns)
        for entry in stmt.findall("c:Ntry", ns):
            status = _text(entry, "c:Sts/c:Cd", ns) or _text(entry, "c:Sts", ns)
            if status and status.upper() not in ("BOOK",):
                continue  # pending and informational entries are not on the account yet
            amount_el = entry.find("c:Amt", ns)
            amount_text = (amount_el.text or "").strip() if amount_el is not None else ""
            if amount_el is None or not amount_text:
                raise StatementUnreadable(format="camt053", problem=_("an entry without Amt"))
            amount = Decimal(amount_text)
            result.currency = result.currency or amount_el.get("Ccy", "")
            if _text(entry, "c:CdtDbtInd", ns) == "DBIT":
                amount = -amount
            day = _text(entry, "c:BookgDt/c:Dt", ns) or _text(entry, "c:BookgDt/c:DtTm", ns)[:10]
            details = entry.find("c:NtryDtls/c:TxDtls", ns)
            text, party, reference = "", "", ""
            if details is not None:
                text = " ".join(t.text or "" for t in details.findall("c:RmtInf/c:Ustrd", ns))
                party_path = "c:RltdPties/c:Dbtr/c:Nm" if amount > 0 else "c:RltdPties/c:Cdtr/c:Nm"
                party = _text(details, party_path, ns)
                reference = _text(details, "c:Refs/c:EndToEndId", ns)
                if reference == "NOTPROVIDED":
                    reference = ""
            text = text or _text(entry, "c:AddtlNtryInf", ns)
            bank_id = _text(entry, "c:AcctSvcrRef", ns) or _text(entry, "c:NtryRef", ns)
            result.lines.append(
                StatementLine(date.fromisoformat(day), amount, text, party, reference, bank_id)
            )
    return result


def _text(element: ET.Element, path: str, ns: dict[str, str]) -> str:
    found = element.find(path, ns)
    return (found.text or "").strip() if found is not None else ""


# --- MT940 ----------------------------------------------------------------------------------------


def _mt940(content: str) -> Statement:
    import mt940

    transactions = mt940.models.Transactions()
    transactions.parse(content)
    if "account_identification" not in transactions.data:
        raise StatementUnreadable(format="mt940", problem=_("no :25: account identification"))
    result = Statement("mt940", account=str(transactions.data["account_identification"]))
    balance = transactions.data.get("final_opening_balance") or transactions.data.get("opening_balance")
    if balance is not None:
        result.currency = str(balance.amount.currency)
    for transaction in transactions:
        data = transaction.data
        amount = data["amount"]
        result.currency = result.currency or str(amount.currency)
        reference = data.get("customer_reference") or ""
        bank_reference = data.get("bank_reference") or ""
        day = data.get("entry_date") or data["date"]
        result.lines.append(
            StatementLine(
                date(day.year, day.month, day.day),
                Decimal(amount.amount),
                data.get("transaction_details") or data.get("extra_details") or "",
                "",
                "" if reference == "NONREF" else reference,
                bank_reference,
            )
        )
    return result


# --- OFX ------------------------------------------------------------------------------------------


def _ofx(content: str) -> Statement:
    from ofxtools.Parser import OFXTree

    tree = OFXTree()
    tree.parse(io.BytesIO(content.encode("utf-8")))
    ofx = tree.convert()
    statements = list(ofx.statements)
    if not statements:
        raise StatementUnreadable(format="ofx", problem=_("no bank or card statement in it"))
    result = Statement("ofx")
    for statement in statements:
        result.currency = result.currency or statement.curdef
        result.account = result.account or statement.account.acctid
        for transaction in statement.banktranlist or []:
            posted = transaction.dtposted
            result.lines.append(
                StatementLine(
                    posted.date() if isinstance(posted, datetime) else posted,
                    Decimal(transaction.trnamt),
                    transaction.memo or transaction.name or "",
                    transaction.name or getattr(transaction, "payee", None) or "",
                    transaction.refnum or transaction.checknum or "",
                    transaction.fitid or "",
                )
            )
    return result


# --- CSV ------------------------------------------------------------------------------------------


def _csv(content: str, mapping: CsvMapping) -> Statement:
    if not mapping.amount and not (mapping.paid_in or mapping.paid_out):
        raise StatementUnreadable(format="csv", problem=_("map amount, or paid_in and paid_out"))
    sample = content[:4096]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.DictReader(io.StringIO(content.lstrip("\ufeff")), dialect=dialect)
    headers = [name.strip() for name in reader.fieldnames or []]
    wanted = [mapping.date, mapping.amount, mapping.paid_in, mapping.paid_out]
    wanted += [mapping.description, mapping.reference, mapping.counterparty]
    missing = [name for name in wanted if name and name not in headers]
    if missing:
        raise NoSuchColumn(column=missing[0], columns=", ".join(headers))
    result = Statement("csv")
    for number, raw in enumerate(reader, start=2):
        row = {(key or "").strip(): (value or "").strip() for key, value in raw.items() if key}
        if not any(row.values()):
            continue
        try:
            day = datetime.strptime(row[mapping.date], mapping.date_format).date()
        except ValueError:
            raise NotADate(row=number, text=row[mapping.date], date_format=mapping.date_format) from None
        if mapping.amount:
            amount = _number(row[mapping.amount], mapping, number)
        else:
            paid_in = (
                _number(row.get(mapping.paid_in, ""), mapping, number) if mapping.paid_in else Decimal(0)
            )
            paid_out = (
                _number(row.get(mapping.paid_out, ""), mapping, number) if mapping.paid_out else Decimal(0)
            )
            amount = paid_in - abs(paid_out)
        if amount == 0:
            continue
        result.lines.append(
            StatementLine(
                day,
                amount,
                row.get(mapping.description, ""),
                row.get(mapping.counterparty, ""),
                row.get(mapping.reference, ""),
            )
        )
    return result


def _number(text: str, mapping: CsvMapping, row: int) -> Decimal:
    value = text.replace("\u00a0", "").replace(" ", "")
    if not value:
        return Decimal(0)
    value = value.replace(".", "").replace(",", ".") if mapping.decimal_comma else value.replace(",", "")
    value = re.sub(r"[^\d.\-+]", "", value)
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise NotAnAmount(row=row, text=text) from None
    if not number.is_finite():
        raise NotAnAmount(row=row, text=text)
    return number
