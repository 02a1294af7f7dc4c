"""The database's own guard of the ledger: an entry's lines sum to zero in the entry's currency and
in base currency (checked at commit, or when `ledger.check_balance_now` asks), and posted lines
are never changed or deleted (a correction is a reversing entry)."""

from django.db import migrations

BALANCED = """
CREATE FUNCTION accounting_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    entry bigint;
    lines integer;
    total numeric;
    base_total numeric;
BEGIN
    IF TG_OP = 'DELETE' THEN entry := OLD.entry_id; ELSE entry := NEW.entry_id; END IF;
    SELECT count(*), coalesce(sum(amount), 0), coalesce(sum(base_amount), 0)
      INTO lines, total, base_total
      FROM accounting_journalline WHERE entry_id = entry;
    IF lines > 0 AND (total <> 0 OR base_total <> 0) THEN
        RAISE EXCEPTION 'journal entry % does not balance: % in its currency, % in base currency',
            entry, total, base_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER accounting_journalline_balanced
    AFTER INSERT OR UPDATE OR DELETE ON accounting_journalline
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION accounting_entry_balanced();

CREATE FUNCTION accounting_line_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'posted journal lines are never changed or deleted; post a reversing entry'
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER accounting_journalline_immutable
    BEFORE UPDATE OR DELETE ON accounting_journalline
    FOR EACH ROW EXECUTE FUNCTION accounting_line_immutable();
"""

UNDO = """
DROP TRIGGER IF EXISTS accounting_journalline_immutable ON accounting_journalline;
DROP FUNCTION IF EXISTS accounting_line_immutable();
DROP TRIGGER IF EXISTS accounting_journalline_balanced ON accounting_journalline;
DROP FUNCTION IF EXISTS accounting_entry_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("accounting", "0001_initial")]

    operations = [migrations.RunSQL(BALANCED, UNDO)]
