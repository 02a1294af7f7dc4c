"""What the HR area's services, selectors and tools are built on, neither a write on someone's
behalf nor a read of what they may see: leave arithmetic (working days, public holidays,
accrual) and the checks of an employment record's values."""
