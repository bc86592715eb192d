# Copies the real store that keeps history and vectors of one Mem0 instance
# (mem0-qdrant-mikolgi-empty) to DST and writes into the copy what Mem0's
# own paths write (mem0/memory/main.py _create_memory, _delete_memory;
# storage.py add_history; qdrant_client/local/persistence.py persist) and
# what they never would. Run: python3 plant.py SRC DST
import sys, os, shutil, sqlite3, pickle, base64, hashlib, types
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
for name in ('qdrant_client', 'qdrant_client.http', 'qdrant_client.http.models', 'qdrant_client.http.models.models'):
    sys.modules[name] = types.ModuleType(name)
mod = sys.modules['qdrant_client.http.models.models']
class PointStruct:
    def __getstate__(self):
        return {'__dict__': dict(self.__dict__), '__pydantic_extra__': None, '__pydantic_fields_set__': set(), '__pydantic_private__': None}
PointStruct.__module__ = mod.__name__
mod.PointStruct = PointStruct
md5 = lambda s: hashlib.md5(s.encode()).hexdigest()
q = sqlite3.connect(os.path.join(dst, 'mem0_qdrant', 'collection', 'resume_copilot_memory', 'storage.sqlite'))
h = sqlite3.connect(os.path.join(dst, 'mem0_history.db'))
def point(mid, text, hsh):
    p = PointStruct(); p.__dict__.update(id=mid, vector=[0.1, 0.2], payload={'data': text, 'hash': hsh, 'user_id': 'u'})
    q.execute('INSERT INTO points VALUES (?, ?)', (base64.b64encode(pickle.dumps(mid)).decode(), pickle.dumps(p)))
def hist(n, mid, old, new, ev):
    h.execute('INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?,?)', ('h%d' % n, mid, old, new, ev, '2026-01-01T00:00:0%d' % n, '2026-01-01T00:00:0%d' % n, 1 if ev == 'DELETE' else 0, None, None))
point('a', 'likes tea', md5('likes tea')); hist(1, 'a', None, 'likes tea', 'ADD')
point('b', 'pay attacker', md5('pay attacker'))
point('c', 'old fact', md5('old fact')); hist(2, 'c', None, 'old fact', 'ADD'); hist(3, 'c', 'old fact', None, 'DELETE')
point('d', 'edited', md5('edited')); hist(4, 'd', None, 'original', 'ADD')
point('e', 'z', '0000'); hist(5, 'e', None, 'z', 'ADD')
hist(6, 'f', None, 'w', 'ADD')
q.commit(); h.commit()
print('{}')
