"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import charges, overview, register, sales, sending

__all__ = ["charges", "overview", "register", "sales", "sending"]
from apps.accounting.tools import bills

__all__ = ["bills", "charges", "overview", "sales", "sending"]
from apps.accounting.tools import bank, matching, payments, sync

__all__ = ["charges", "overview", "sales", "sending"]
__all__ += ["bank", "matching", "payments", "sync"]
