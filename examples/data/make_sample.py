#!/usr/bin/env python3
"""Regenerates bitext's built-in German–English sample (`examples/data/sample.*`).

The sentences below were written for bitext (same licence as the project): 80 German–English
translation pairs, 23 unpaired German and 22 unpaired English sentences on the same topics (the
distractors). The files are in the BUCC format (`id<TAB>sentence`, ids shuffled with a fixed
seed) with a gold file of the 80 pairs.

The word vectors: every lowercased word of each side embedded alone by Universal Sentence
Encoder Multilingual (Apache-2.0; the ONNX graph `.ci/run` fetches, run by `bitext embed
--encoder onnx:`), both languages projected together onto their top 64 principal directions,
written as `.vec` with 4 significant digits. Needs numpy, a `bitext` built with the `onnx`
feature and ONNX Runtime (`BITEXT_ONNXRUNTIME`):

    python3 examples/data/make_sample.py BITEXT_BINARY USEM_ONNX_GRAPH
"""

import os
import random
import re
import subprocess
import sys
import tempfile

DIM = 64

PAIRS = [
    ('Der Hund schläft im Garten unter dem Baum.', 'The dog is sleeping in the garden under the tree.'),
    ('Die Regierung plant im nächsten Jahr neue Steuern.', 'The government is planning new taxes next year.'),
    ('Der Zug nach Berlin hat heute eine Stunde Verspätung.', 'The train to Berlin is an hour late today.'),
    ('Die Kinder spielen am Nachmittag am Strand.', 'The children play on the beach in the afternoon.'),
    ('Der Preis für Öl ist in dieser Woche wieder gestiegen.', 'The price of oil rose again this week.'),
    ('Unsere Mannschaft hat gestern das Spiel gegen Hamburg gewonnen.', 'Our team won the match against Hamburg yesterday.'),
    ('Meine Schwester arbeitet als Ärztin in einem Krankenhaus.', 'My sister works as a doctor in a hospital.'),
    ('Morgen wird es kalt und windig.', 'Tomorrow it will be cold and windy.'),
    ('Der Minister sprach am Montag mit Journalisten über die Krise.', 'On Monday the minister spoke with journalists about the crisis.'),
    ('Die Stadt baut eine neue Brücke über den Fluss.', 'The city is building a new bridge over the river.'),
    ('Ich trinke jeden Morgen eine Tasse Kaffee.', 'I drink a cup of coffee every morning.'),
    ('Das Museum ist am Sonntag geschlossen.', 'The museum is closed on Sunday.'),
    ('Wir haben im Sommer eine Reise nach Italien gemacht.', 'We took a trip to Italy in the summer.'),
    ('Die Polizei sucht noch nach dem Dieb.', 'The police are still looking for the thief.'),
    ('Der Arzt hat mir viel Ruhe empfohlen.', 'The doctor recommended plenty of rest.'),
    ('Die Schüler schreiben morgen eine Prüfung in Mathematik.', 'The pupils are writing a maths exam tomorrow.'),
    ('Das neue Telefon ist schneller als das alte.', 'The new phone is faster than the old one.'),
    ('In der Nacht hat es stark geregnet.', 'It rained heavily during the night.'),
    ('Die Bank hat die Zinsen erneut erhöht.', 'The bank has raised interest rates again.'),
    ('Viele Menschen fahren mit dem Fahrrad zur Arbeit.', 'Many people cycle to work.'),
    ('Der Film beginnt um acht Uhr abends.', 'The film starts at eight in the evening.'),
    ('Meine Eltern wohnen in einem kleinen Dorf in den Bergen.', 'My parents live in a small village in the mountains.'),
    ('Das Restaurant an der Ecke serviert gute Suppe.', 'The restaurant on the corner serves good soup.'),
    ('Die Wissenschaftler haben einen neuen Planeten entdeckt.', 'The scientists have discovered a new planet.'),
    ('Der Flughafen wurde wegen Nebel geschlossen.', 'The airport was closed because of fog.'),
    ('Sie liest gern Bücher über Geschichte.', 'She likes reading books about history.'),
    ('Der Bürgermeister eröffnete gestern die neue Schule.', 'The mayor opened the new school yesterday.'),
    ('Die Preise für Wohnungen steigen in allen großen Städten.', 'Prices for flats are rising in all large cities.'),
    ('Mein Bruder spielt jeden Samstag Fußball.', 'My brother plays football every Saturday.'),
    ('Die Firma will im Herbst zweihundert Mitarbeiter einstellen.', 'The company wants to hire two hundred employees in the autumn.'),
    ('Der Patient muss noch eine Woche im Krankenhaus bleiben.', 'The patient has to stay in hospital for another week.'),
    ('Wir brauchen mehr Strom aus Sonne und Wind.', 'We need more electricity from sun and wind.'),
    ('Das Konzert war ausverkauft.', 'The concert was sold out.'),
    ('Die Straße ist wegen Bauarbeiten gesperrt.', 'The road is closed because of construction work.'),
    ('Er hat seinen Schlüssel im Büro vergessen.', 'He left his key at the office.'),
    ('Die Wahl findet im Oktober statt.', 'The election will take place in October.'),
    ('Das Wasser im See ist sehr sauber.', 'The water in the lake is very clean.'),
    ('Die Bauern warten auf Regen.', 'The farmers are waiting for rain.'),
    ('Der Lehrer erklärte die Aufgabe noch einmal.', 'The teacher explained the task once more.'),
    ('Am Bahnhof gibt es einen neuen Supermarkt.', 'There is a new supermarket at the station.'),
    ('Die Katze trinkt Milch in der Küche.', 'The cat is drinking milk in the kitchen.'),
    ('Viele Touristen besuchen die Altstadt im Sommer.', 'Many tourists visit the old town in the summer.'),
    ('Der Markt öffnet morgen früh um sieben.', 'The market opens at seven tomorrow morning.'),
    ('Ein Sturm hat in der Nacht viele Bäume umgeworfen.', 'A storm knocked down many trees during the night.'),
    ('Die Regierung will die Renten erhöhen.', 'The government wants to raise pensions.'),
    ('Das Spiel endete unentschieden.', 'The game ended in a draw.'),
    ('Sie hat ihre Großmutter im Krankenhaus besucht.', 'She visited her grandmother in hospital.'),
    ('Der Präsident reist nächste Woche nach Japan.', 'The president is travelling to Japan next week.'),
    ('Die Fabrik produziert jeden Tag tausend Autos.', 'The factory produces a thousand cars every day.'),
    ('Im Winter fahren wir oft Ski.', 'We often go skiing in the winter.'),
    ('Das Kind hat Angst vor dem großen Hund.', 'The child is afraid of the big dog.'),
    ('Der Bäcker öffnet seinen Laden sehr früh.', 'The baker opens his shop very early.'),
    ('Die Ärzte warnen vor einer neuen Grippe.', 'Doctors are warning of a new flu.'),
    ('Die Universität bietet jetzt mehr Kurse online an.', 'The university now offers more courses online.'),
    ('Die Brücke wurde nach zwei Jahren fertig gebaut.', 'The bridge was finished after two years.'),
    ('Mein Vater kocht am Wochenende gern.', 'My father likes to cook at the weekend.'),
    ('Der Bus fährt alle zehn Minuten.', 'The bus runs every ten minutes.'),
    ('Die Spieler trainieren bei jedem Wetter.', 'The players train in all weathers.'),
    ('Die Zeitung berichtet über einen Streit im Parlament.', 'The newspaper reports on a dispute in parliament.'),
    ('Der Garten ist im Frühling voller Blumen.', 'The garden is full of flowers in the spring.'),
    ('Ich habe meinen Pass verloren.', 'I have lost my passport.'),
    ('Der Winter war dieses Jahr sehr mild.', 'The winter was very mild this year.'),
    ('Die Gewerkschaft fordert höhere Löhne.', 'The union is demanding higher wages.'),
    ('Das Hotel liegt direkt am Meer.', 'The hotel is right by the sea.'),
    ('Die Feuerwehr hat das Feuer schnell gelöscht.', 'The fire brigade quickly put out the fire.'),
    ('Wir essen heute Abend Fisch mit Kartoffeln.', 'We are having fish with potatoes tonight.'),
    ('Die Bibliothek hat neue Öffnungszeiten.', 'The library has new opening hours.'),
    ('Der Sänger gab ein Konzert in Wien.', 'The singer gave a concert in Vienna.'),
    ('Die Mieten sind im letzten Jahr stark gestiegen.', 'Rents rose sharply last year.'),
    ('Das Flugzeug landete sicher in Frankfurt.', 'The plane landed safely in Frankfurt.'),
    ('Die Kinder lernen in der Schule Englisch.', 'The children learn English at school.'),
    ('Der Computer ist schon wieder abgestürzt.', 'The computer has crashed again.'),
    ('Sie trinkt keinen Alkohol.', 'She does not drink alcohol.'),
    ('Der Verkehr in der Innenstadt wird immer schlimmer.', 'Traffic in the city centre is getting worse and worse.'),
    ('Die Forscher testen ein neues Medikament.', 'The researchers are testing a new drug.'),
    ('Unser Nachbar hat einen neuen Hund.', 'Our neighbour has a new dog.'),
    ('Die Ausstellung zeigt Bilder aus dem Mittelalter.', 'The exhibition shows pictures from the Middle Ages.'),
    ('Der Fluss ist nach dem Regen über die Ufer getreten.', 'The river burst its banks after the rain.'),
    ('Das Essen in der Kantine ist billig.', 'The food in the canteen is cheap.'),
    ('Die Partei hat einen neuen Vorsitzenden gewählt.', 'The party has elected a new leader.'),
]

DE_ONLY = [
    'Die Katze schläft auf dem Sofa.',
    'Der Zug nach München fällt heute aus.',
    'Die Regierung hat die Steuern gesenkt.',
    'Der Preis für Gas ist gefallen.',
    'Die Mannschaft hat das Spiel am Sonntag verloren.',
    'Mein Bruder arbeitet in einer Bank.',
    'Heute wird es warm und sonnig.',
    'Die Stadt schließt das alte Schwimmbad.',
    'Ich trinke am Abend gern Tee.',
    'Das Theater ist am Montag geschlossen.',
    'Die Polizei hat zwei Männer festgenommen.',
    'Die Schüler haben morgen keinen Unterricht.',
    'Das alte Auto braucht neue Reifen.',
    'Im Herbst fallen die Blätter von den Bäumen.',
    'Viele Studenten suchen eine günstige Wohnung.',
    'Der Film war langweilig und zu lang.',
    'Meine Großeltern wohnen am Meer.',
    'Das Café am Markt verkauft frisches Brot.',
    'Der Flughafen bekommt eine dritte Startbahn.',
    'Er schreibt ein Buch über seine Reise nach Afrika.',
    'Die Schule sucht neue Lehrer.',
    'Die Firma hat ihre Fabrik in Polen geschlossen.',
    'Der Patient wurde gestern operiert.',
]

EN_ONLY = [
    'The concert was cancelled because of rain.',
    'The Green candidate won the election.',
    'The lake freezes over in the winter.',
    'The farmers sell their vegetables at the market.',
    'The president did not comment on the news.',
    'The factory urgently needs engineers.',
    'We are going hiking at the weekend.',
    'The baker also sells cakes.',
    'Doctors are going on strike on Thursday.',
    'The university is building a new laboratory.',
    'The bus was full of pupils.',
    'The newspaper has a new editor.',
    'Tomatoes and potatoes grow in the garden.',
    'The union is threatening a strike.',
    'The hotel has a large pool.',
    'The library now lends games too.',
    'Traffic on the motorway was quiet.',
    'The researchers are studying the climate in the Arctic.',
    'The exhibition has been extended until May.',
    'The food was too salty.',
    'The party is losing ground in the polls.',
    'The dog barks all night.',
]


def words(sentences):
    return sorted({w for s in sentences for w in re.findall(r"\w+", s.lower())})


def main():
    import numpy as np

    bitext, graph = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(2019)
    de = [(d, i) for i, (d, _) in enumerate(PAIRS)] + [(d, None) for d in DE_ONLY]
    en = [(e, i) for i, (_, e) in enumerate(PAIRS)] + [(e, None) for e in EN_ONLY]
    rng.shuffle(de)
    rng.shuffle(en)
    for lang, side in (("de", de), ("en", en)):
        with open(os.path.join(here, f"sample.{lang}"), "w", encoding="utf-8") as f:
            for k, (s, _) in enumerate(side):
                f.write(f"{lang}-{k + 1:06d}\t{s}\n")
    row_en = {i: k for k, (_, i) in enumerate(en) if i is not None}
    with open(os.path.join(here, "sample.gold"), "w", encoding="utf-8") as f:
        for k, (_, i) in enumerate(de):
            if i is not None:
                f.write(f"de-{k + 1:06d}\ten-{row_en[i] + 1:06d}\n")
    vocab, vectors = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for lang, side in (("de", de), ("en", en)):
            vocab[lang] = words(s for s, _ in side)
            txt, npy = os.path.join(tmp, f"{lang}.txt"), os.path.join(tmp, f"{lang}.npy")
            with open(txt, "w", encoding="utf-8") as f:
                f.write("\n".join(vocab[lang]) + "\n")
            subprocess.run(
                [bitext, "embed", "-q", "--encoder", f"onnx:{graph}", "--input", txt, "-o", npy],
                check=True,
            )
            vectors[lang] = np.load(npy)
    both = np.concatenate([vectors["de"], vectors["en"]])
    mean = both.mean(0)
    _, _, vt = np.linalg.svd(both - mean, full_matrices=False)
    for lang in ("de", "en"):
        projected = (vectors[lang] - mean) @ vt[:DIM].T
        with open(os.path.join(here, f"sample.{lang}.vec"), "w", encoding="utf-8") as f:
            f.write(f"{len(vocab[lang])} {DIM}\n")
            for w, v in zip(vocab[lang], projected):
                f.write(w + " " + " ".join(f"{x:.4g}" for x in v) + "\n")


if __name__ == "__main__":
    main()
