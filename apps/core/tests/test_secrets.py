from apps.core import secrets


def test_generated_secrets_are_well_formed_and_distinct():
    values = {secrets.generate("atp") for _ in range(200)}

    assert len(values) == 200
    assert all(secrets.is_well_formed(value, "atp") for value in values)


def test_a_changed_character_breaks_the_checksum():
    value = secrets.generate("atp")
    flipped = value[:10] + ("A" if value[10] != "A" else "B") + value[11:]

    assert not secrets.is_well_formed(flipped, "atp")


def test_the_prefix_length_and_alphabet_are_checked():
    value = secrets.generate("atp")

    assert not secrets.is_well_formed(value, "atk")
    assert not secrets.is_well_formed(value + "x", "atp")
    assert not secrets.is_well_formed(value[:-1] + "-", "atp")
