\set id random(1, 100000)
UPDATE pgb_rows SET v = v + 1 WHERE id = :id;
